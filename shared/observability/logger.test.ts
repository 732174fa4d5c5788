import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startService } from '../../e2e/harness/service.js';
import { events } from '../db/schema/index.js';
import { senderUserId } from '../domain/ids.js';
import { uniqueSuffix } from '../testing/database.js';
import { eventually } from '../testing/eventually.js';
import { serviceEnv } from '../testing/service-env.js';
import { useTestData } from '../testing/test-data.js';
import { createLogger } from './logger.js';

/** A logger writing into an array of parsed lines instead of stdout. */
function capturingLogger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ level, name: 'test', destination }), lines };
}

describe('createLogger', () => {
  it('prints [redacted] for secrets, tokens and authorization, at the top level and one level down', () => {
    const { logger, lines } = capturingLogger('info');
    logger.info(
      {
        secret: 's-1',
        token: 't-1',
        authorization: 'Bearer a-1',
        apiSecret: 's-2',
        credential: { key: 'qcr_key', secret: 's-3', secretHash: 'h-1' },
        request: { headers: { authorization: 'Bearer a-2', 'x-api-secret': 's-4', 'x-api-key': 'qcr_key' } },
        config: { ADMIN_TOKEN: 'admin-1', LIVE_TOKEN_SECRET: 'live-1' },
      },
      'something happened',
    );
    expect(lines).toHaveLength(1);
    const printed = JSON.stringify(lines[0]);
    for (const hidden of ['s-1', 't-1', 'a-1', 's-2', 's-3', 'h-1', 'a-2', 's-4', 'admin-1', 'live-1']) {
      expect(printed).not.toContain(hidden);
    }
    expect(lines[0]).toMatchObject({
      secret: '[redacted]',
      token: '[redacted]',
      authorization: '[redacted]',
      credential: { key: 'qcr_key', secret: '[redacted]' },
      request: { headers: { authorization: '[redacted]', 'x-api-secret': '[redacted]', 'x-api-key': 'qcr_key' } },
      msg: 'something happened',
    });
  });

  it('honours the level', () => {
    const { logger, lines } = capturingLogger('warn');
    logger.info('quiet');
    logger.debug('quieter');
    logger.warn('loud');
    expect(lines.map((line) => line.msg)).toEqual(['loud']);
    const silent = capturingLogger('silent');
    silent.logger.error('nothing');
    expect(silent.lines).toEqual([]);
  });
});

describe('a failed statement in a log line', () => {
  const { database } = useTestData('log_query_errors', { providers: false });

  it('keeps the statement and the driver error, never the parameters (user data)', async () => {
    const { logger, lines } = capturingLogger('info');
    const failure = await database.db
      .insert(events)
      .values({
        providerId: 'not-a-uuid',
        userId: senderUserId('sensitive-user-77'),
        eventType: 'deposit',
        occurredAt: 1_700_000_000_000_000n,
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    logger.error({ err: failure }, 'insert failed');
    const printed = JSON.stringify(lines);
    expect(printed).toContain('insert into \\"events\\"');
    expect(printed).toContain('invalid input syntax for type uuid');
    expect(printed).not.toContain('sensitive-user-77');
    expect(printed).not.toContain('params');
  });
});

describe('the API process at LOG_LEVEL=debug', () => {
  const adminToken = `log-test-admin-${uniqueSuffix()}-token`;
  const { database } = useTestData('logs', { providers: false });
  let api: ServiceProcess;

  beforeAll(async () => {
    api = await startService(
      'api',
      serviceEnv({
        databaseUrl: database.url,
        queuePrefix: `test-logs-${uniqueSuffix()}`,
        // A token of this test's own: nothing else could have written it into a log.
        env: { ADMIN_TOKEN: adminToken, LOG_LEVEL: 'debug', CREDENTIAL_CACHE_TTL_MS: '0' },
      }),
    );
  });
  afterAll(async () => {
    await api?.stop();
  });

  it('logs one line per request, and never the credential secret nor the admin token', async () => {
    const admin = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
    const post = (path: string, headers: Record<string, string>, body: unknown) =>
      fetch(`${api.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });

    const provider = (await (await post('/admin/v1/providers', admin, { type: 'platform', name: 'Log Test' })).json()) as {
      data: { id: string };
    };
    const created = (await (await post(`/admin/v1/providers/${provider.data.id}/credentials`, admin, {})).json()) as {
      data: { key: string; secret: string };
    };
    const { key, secret } = created.data;
    expect(secret.length).toBeGreaterThan(16);

    const caller = { 'x-api-key': key, 'x-api-secret': secret, 'content-type': 'application/json', 'x-request-id': 'log-test-1' };
    expect((await post('/v1/users/register', caller, { platform_user_id: 'log-user' })).status).toBe(200);
    const event = { user_id: 'log-user', event_type: 'kyc', timestamp: '2026-01-01T00:00:00Z' };
    expect((await post('/v1/events', caller, event)).status).toBe(200);
    // A wrong secret, a bad body and an admin call with a wrong token are logged too, still without what was sent.
    const wrongSecret = `${secret.slice(0, -4)}zzzz`;
    expect((await post('/v1/events', { ...caller, 'x-api-secret': wrongSecret }, event)).status).toBe(401);
    expect((await post('/v1/events', caller, { ...event, timestamp: secret })).status).toBe(400);
    expect((await post('/admin/v1/providers', { ...admin, authorization: `Bearer ${adminToken}x` }, {})).status).toBe(401);

    const lines = await waitForRequestLines(api, 7);
    const requestLines = lines.filter((line) => line.msg === 'request');
    expect(requestLines.find((line) => line.requestId === 'log-test-1')).toMatchObject({
      method: 'POST',
      route: '/v1/users/register',
      status: 200,
      durationMs: expect.any(Number),
    });
    const everything = api.lines().join('\n');
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(wrongSecret);
    expect(everything).not.toContain(adminToken);
  });
});

/** The process's JSON lines once it has logged at least `count` request lines (stdout is flushed asynchronously). */
function waitForRequestLines(service: ServiceProcess, count: number) {
  return eventually(
    async () => {
      const parsed = service
        .lines()
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      return parsed.filter((line) => line.msg === 'request').length >= count ? parsed : undefined;
    },
    { timeoutMs: 5000, what: `${count} request lines` },
  );
}
