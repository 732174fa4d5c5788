import { afterAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN } from '../../shared/testing/admin-token.js';
import { eventually } from '../../shared/testing/eventually.js';
import { createTestProvider } from '../../shared/testing/fixtures.js';
import { listen } from '../testing/http-server.js';
import { createTestApp, type TestApp } from '../testing/test-app.js';
import { useTestService } from '../testing/test-service.js';

// docs/operations.md, "Rate limits": 429 in the envelope with Retry-After and the
// draft-11 RateLimit fields; per credential, per address for failed authentication
// and for wrong admin tokens; an in-memory count when Redis is away.
const { database, platform } = useTestService('rate_limits');
const apps: TestApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
});
/**
 * Until its Redis connection is ready an app counts in its in-memory insurance: a count begun there and
 * carried on in Redis would split in two. So each app is used once connected (unless its Redis is meant away).
 */
const appWith = async (config: Parameters<typeof createTestApp>[1] = {}) => {
  const app = await createTestApp(database, config);
  apps.push(app);
  if (config.REDIS_URL === undefined)
    await eventually(async () => (app.deps.redis.status === 'ready' ? true : undefined), { what: 'Redis connection' });
  return app;
};

const read = (app: TestApp, headers: Record<string, string>) => app.call('GET', '/v1/quest-chains/active/someone', { headers });
const badKey = { 'x-api-key': 'pk_nobody', 'x-api-secret': 'sk_nothing' };

function expect429(answer: Awaited<ReturnType<TestApp['call']>>, policy: string, quota: number) {
  expect(answer.status).toBe(429);
  expect(answer.json).toMatchObject({ success: false, code: 'rate_limited' });
  const retryAfter = Number(answer.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(answer.headers.get('ratelimit-policy')).toBe(`"${policy}";q=${quota};w=60`);
  expect(answer.headers.get('ratelimit')).toBe(`"${policy}";r=0;t=${retryAfter}`);
}

describe('per credential', () => {
  it('answers 429 past the quota, for that credential only', async () => {
    const app = await appWith({ RATE_LIMIT_CREDENTIAL_PER_MINUTE: '5' });
    const other = await createTestProvider(database.db, 'platform');
    for (let n = 0; n < 5; n += 1) expect((await read(app, platform.headers)).status, `request ${n + 1}`).toBe(200);
    expect429(await read(app, platform.headers), 'credential', 5);
    expect((await read(app, other.headers)).status).toBe(200);
  });

  it('counts requests far from the quota locally and adds them to Redis in one call per flush', async () => {
    const app = await appWith({ RATE_LIMIT_CREDENTIAL_PER_MINUTE: '1000' });
    const answers = await Promise.all(Array.from({ length: 40 }, () => read(app, platform.headers)));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const key = `${app.config.QUEUE_PREFIX}:rate:credential:${platform.key}`;
    let count = 0;
    await eventually(async () => ((count = Number(await app.deps.redis.get(key))) === 40 ? true : undefined), {
      what: 'the shared count to reach 40',
    }).catch((error: Error) => {
      throw new Error(`${error.message} (it is ${count})`);
    });
  });

  it('keeps counting in memory while Redis is unreachable, and ingest still answers', async () => {
    const app = await appWith({ RATE_LIMIT_CREDENTIAL_PER_MINUTE: '3', REDIS_URL: 'redis://127.0.0.1:1' });
    const event = (n: number) => ({ user_id: 'u', event_type: 'login', timestamp: `2026-01-01T00:00:0${n}Z` });
    for (let n = 0; n < 3; n += 1)
      expect((await app.call('POST', '/v1/events', { headers: platform.headers, body: event(n) })).status).toBe(200);
    expect429(await app.call('POST', '/v1/events', { headers: platform.headers, body: event(3) }), 'credential', 3);
  });
});

describe('failed authentication per address', () => {
  it('answers 401 up to the quota, then 429 to every request from the address, good credentials too', async () => {
    const app = await appWith({ RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '3' });
    for (let n = 0; n < 3; n += 1) expect((await read(app, badKey)).status).toBe(401);
    expect429(await read(app, badKey), 'auth-failures', 3);
    // A correct pair is refused too while blocked: otherwise a blocked guesser would still learn when it guessed right.
    expect429(await read(app, platform.headers), 'auth-failures', 3);
  });

  it('answers a blocked address late (a tarpit), so a flood from it slows to one attempt per connection per delay', async () => {
    const app = await appWith({ RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '1', RATE_LIMIT_BLOCKED_DELAY_MS: '400' });
    expect((await read(app, badKey)).status).toBe(401);
    expect429(await read(app, badKey), 'auth-failures', 1); // the attempt that trips the block
    const started = performance.now();
    expect429(await read(app, badKey), 'auth-failures', 1); // blocked: held before the answer
    // A lower bound only (timers never fire early): the refusal waited for the tarpit.
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
  });

  it('counts under the socket address, and ignores X-Forwarded-For unless TRUST_PROXY says a proxy writes it', async () => {
    const direct = await appWith({ RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '2' });
    const server = await listen(direct.app);
    try {
      const send = (forwardedFor: string) =>
        fetch(`${server.url}/v1/quest-chains/active/x`, { headers: { ...badKey, 'x-forwarded-for': forwardedFor } });
      expect((await send('10.0.0.1')).status).toBe(401);
      expect((await send('10.0.0.2')).status).toBe(401);
      expect((await send('10.0.0.3')).status).toBe(429); // all three came from 127.0.0.1
    } finally {
      await server.close();
    }

    const proxied = await appWith({ RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '2', TRUST_PROXY: '1' });
    // The client claims 6.6.6.6; our one proxy appended what it saw (10.0.0.1): that is the address.
    const from = (address: string) => ({ ...badKey, 'x-forwarded-for': `6.6.6.6, ${address}` });
    expect((await read(proxied, from('10.0.0.1'))).status).toBe(401);
    expect((await read(proxied, from('10.0.0.1'))).status).toBe(401);
    expect((await read(proxied, from('10.0.0.1'))).status).toBe(429);
    expect((await read(proxied, from('10.0.0.2'))).status).toBe(401);
    expect((await read(proxied, { ...platform.headers, 'x-forwarded-for': '10.0.0.2' })).status).toBe(200);
  });
});

describe('wrong admin tokens per address', () => {
  it('answers 401 up to the quota, then 429 even to the right token; a missing token is not counted', async () => {
    const app = await appWith({ RATE_LIMIT_ADMIN_FAILURES_PER_MINUTE: '2' });
    const admin = (authorization?: string) =>
      app.call('GET', '/admin/v1/providers', { headers: authorization ? { authorization } : {} });
    for (let n = 0; n < 5; n += 1) expect((await admin()).status).toBe(401);
    expect((await admin(`Bearer ${TEST_ADMIN_TOKEN}`)).status).toBe(200);
    expect((await admin('Bearer guess-1')).status).toBe(401);
    expect((await admin('Bearer guess-2')).status).toBe(401);
    expect429(await admin('Bearer guess-3'), 'admin-failures', 2);
    expect429(await admin(`Bearer ${TEST_ADMIN_TOKEN}`), 'admin-failures', 2);
  });

  it("guards the queue dashboard's Basic login the same way", async () => {
    const app = await appWith({ RATE_LIMIT_ADMIN_FAILURES_PER_MINUTE: '1' });
    const basic = (password: string) => `Basic ${Buffer.from(`ops:${password}`).toString('base64')}`;
    const dashboard = (authorization: string) => app.app.request('/admin/queues', { headers: { authorization } });
    expect((await dashboard(basic('wrong-1'))).status).toBe(401);
    expect((await dashboard(basic('wrong-2'))).status).toBe(429);
    expect((await dashboard(basic(TEST_ADMIN_TOKEN))).status).toBe(429);
  });
});
