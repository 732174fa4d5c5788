import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createChangePublisher } from '../../shared/live/change-publisher.js';
import { connectionNameOf } from '../../shared/queue/connection.js';
import { eventually } from '../../shared/testing/eventually.js';
import { cachedAnswer } from '../testing/cached-answer.js';
import { useTestService } from '../testing/test-service.js';
import { answerKey } from './active-answer-cache.js';

// The API's change-notice subscription on one Redis, cut from the server's side as a network fault
// or an operator's CLIENT KILL would: cached answers stop being served within a second and come back
// once the subscription is proved again.

const { api } = useTestService('change_notices');
const admin = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
afterAll(() => admin.disconnect());

const serving = () => api.deps.chainCache.answers.enabled;

async function killNoticeConnections(): Promise<number> {
  const name = connectionNameOf(`${api.config.QUEUE_PREFIX}:notices`);
  const list = (await admin.client('LIST')) as string;
  const ids = list
    .split('\n')
    .filter((line) => line.includes(` name=${name} `))
    .map((line) => /\bid=(\d+)/.exec(line)![1]!);
  for (const id of ids) await admin.client('KILL', 'ID', id);
  return ids.length;
}

describe('change notices on one Redis', () => {
  it('serves cached answers once the subscription answers its probes', async () => {
    await eventually(async () => serving() || undefined, { what: 'serving', timeoutMs: 2000 });
  });

  it('stops serving within a second of its subscriber connection being cut, and serves again once subscribed', async () => {
    await eventually(async () => serving() || undefined, { what: 'serving before the cut', timeoutMs: 2000 });
    expect(await killNoticeConnections()).toBe(1);
    const cutAt = Date.now();
    await eventually(async () => (serving() ? undefined : true), { what: 'serving off', timeoutMs: 1000 });
    expect(Date.now() - cutAt).toBeLessThan(1000);
    await eventually(async () => serving() || undefined, { what: 'serving again', timeoutMs: 5000 });
  });

  it('reports it in /metrics', async () => {
    await eventually(async () => serving() || undefined, { what: 'serving', timeoutMs: 2000 });
    const metrics = await api.call('GET', '/metrics', { headers: api.adminHeaders });
    expect(metrics.text).toMatch(/^qcr_answer_cache_serving 1$/m);
  });

  it("drops every cached answer on a starting worker's notice (a predecessor may have died between commit and publish)", async () => {
    await eventually(async () => serving() || undefined, { what: 'serving', timeoutMs: 2000 });
    const { answers } = api.deps.chainCache;
    for (const user of ['a', 'b'])
      answers.store(answers.ticket(), answerKey(`platform-${user}`, user), cachedAnswer(user, '{}', Date.now() + 60_000));
    expect(answers.size.entries).toBe(2);
    await createChangePublisher({ redis: admin, prefix: api.config.QUEUE_PREFIX, sharded: false }).allAnswersChanged();
    await eventually(async () => (answers.size.entries === 0 ? true : undefined), { what: 'answers dropped', timeoutMs: 2000 });
    expect(answers.size.tags).toBe(0);
  });
});
