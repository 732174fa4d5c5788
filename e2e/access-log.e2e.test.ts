import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueSuffix } from '../shared/testing/database.js';
import { serviceEnv } from '../shared/testing/service-env.js';
import { useTestData } from '../shared/testing/test-data.js';
import { type ServiceProcess, startService } from './harness/service.js';

// The API writes its logs through a buffer (docs/performance.md): still one
// access line per request with its request id, and nothing left behind when
// it stops on SIGTERM right after answering.

const { database } = useTestData('access_log', { providers: false });
let api: ServiceProcess;

beforeAll(async () => {
  api = await startService(
    'api',
    serviceEnv({ databaseUrl: database.url, queuePrefix: `test-access-${uniqueSuffix()}`, env: { LOG_LEVEL: 'info' } }),
  );
});
afterAll(async () => {
  await api?.stop();
});

describe('access log', () => {
  it('has one line per request with its request id, the last ones written on SIGTERM', async () => {
    const sent: string[] = [];
    for (let round = 0; round < 5; round += 1) {
      const answers = await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const own = i % 2 === 0 ? { 'x-request-id': `access-${round}-${i}` } : undefined;
          const answer = await fetch(`${api.url}${i % 10 === 9 ? '/no-such-route' : '/healthz'}`, { headers: own });
          await answer.arrayBuffer();
          const echoed = answer.headers.get('x-request-id')!;
          if (own) expect(echoed).toBe(own['x-request-id']);
          return echoed;
        }),
      );
      sent.push(...answers);
    }
    // Stop at once: these lines are still in the buffer, and must not be lost.
    expect(await api.stop('SIGTERM')).toBe(0);

    const lines = api
      .lines()
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const requests = lines.filter((line) => line.msg === 'request');
    const logged = requests.map((line) => line.requestId as string);
    for (const id of sent)
      expect(
        logged.filter((candidate) => candidate === id),
        id,
      ).toHaveLength(1);
    expect(requests.find((line) => line.requestId === sent.at(-1))).toMatchObject({
      method: 'GET',
      status: expect.any(Number),
      route: expect.any(String),
    });
    expect(requests.filter((line) => line.status === 404)).toHaveLength(20);
    expect(lines.at(-1)).toMatchObject({ msg: 'api stopped' });
  });
});
