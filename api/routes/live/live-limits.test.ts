import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { updateCredential } from '../../../core/admin/credentials.js';
import { updateProvider } from '../../../core/admin/providers.js';
import { providersServingLive } from '../../../core/live/live-streams.js';
import { progressChannel, registrationChannel } from '../../../shared/live/channel.js';
import { createLogger } from '../../../shared/observability/logger.js';
import { createRedis } from '../../../shared/queue/connection.js';
import { createTestUser } from '../../../shared/testing/chains.js';
import { eventually } from '../../../shared/testing/eventually.js';
import { createTestProvider, type TestProvider } from '../../../shared/testing/fixtures.js';
import { createApp } from '../../app.js';
import { LiveHub } from '../../live/hub.js';
import type { StreamCaps } from '../../live/stream-registry.js';
import { readSse } from '../../testing/sse-reader.js';
import { createTestApp, type TestApp } from '../../testing/test-app.js';
import { useTestService } from '../../testing/test-service.js';

// Live streams bounded, revoked and never polled (product rules §8.4, docs/operations.md), and CORS (§8.3).
const { database, api, platform } = useTestService('live_limits');
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

// Warnings of the hub and the sessions (a failed lookup, a failed subscribe) reach the test's output.
const warnings = createLogger({ level: 'warn', name: 'live-limits-test' });

/** The app with its own hub: the given caps, provider checks every 100 ms; `subscriber` is the hub's Redis connection. */
function appWithHub(
  caps: StreamCaps = { perUser: 10, perPlatform: 100, perProcess: 100 },
  options: { subscribeTimeoutMs?: number } = {},
) {
  const subscriber = createRedis(api.config.REDIS_URL, 'subscriber');
  const hub = new LiveHub({
    redis: subscriber,
    queuePrefix: api.config.QUEUE_PREFIX,
    logger: warnings,
    caps,
    providersServingLive: (providerIds) => providersServingLive({ db: database.db }, { providerIds }),
    providerCheckMs: 100,
    ...options,
  });
  closers.push(() => hub.close());
  return { hub, subscriber, app: createApp({ ...api.deps, liveHub: hub, logger: warnings }) };
}

const tokenFor = (provider: { id: string }, platformUserId: string) =>
  api.deps.liveTokens.issue({ platformId: provider.id, platformUserId, livemode: true });
const subscribers = async (channel: string) =>
  Number(((await api.deps.redis.call('pubsub', 'numsub', channel)) as [string, number])[1]);

async function openStream(app: ReturnType<typeof createApp>, token: string) {
  const response = await app.request(`/v1/live?token=${token}`);
  expect(response.status).toBe(200);
  const sse = readSse(response.body!);
  await sse.nextEvent('ready');
  return sse;
}

async function expectRefused(app: ReturnType<typeof createApp>, token: string, status: number, code: string) {
  const response = await app.request(`/v1/live?token=${token}`);
  expect(response.status).toBe(status);
  expect(await response.json()).toMatchObject({ success: false, code });
}

describe('stream caps', () => {
  it("refuses a user's stream past the per-user cap with 429 too_many_streams, and admits again once one closes", async () => {
    const { app, hub } = appWithHub({ perUser: 2, perPlatform: 100, perProcess: 100 });
    const first = await openStream(app, tokenFor(platform, 'capped'));
    const second = await openStream(app, tokenFor(platform, 'capped'));
    await expectRefused(app, tokenFor(platform, 'capped'), 429, 'too_many_streams');
    (await openStream(app, tokenFor(platform, 'someone-else'))).cancel();

    await first.cancel();
    await eventually(async () => (hub.streams.size === 1 ? true : undefined), { what: 'the first stream to close' });
    const third = await openStream(app, tokenFor(platform, 'capped'));
    await Promise.all([second.cancel(), third.cancel()]);
  });

  it("caps a platform's streams and the process's", async () => {
    const { app } = appWithHub({ perUser: 10, perPlatform: 2, perProcess: 3 });
    const other = await createTestProvider(database.db, 'platform');
    const open = [await openStream(app, tokenFor(platform, 'p-1')), await openStream(app, tokenFor(platform, 'p-2'))];
    await expectRefused(app, tokenFor(platform, 'p-3'), 429, 'too_many_streams');
    open.push(await openStream(app, tokenFor(other, 'o-1')));
    await expectRefused(app, tokenFor(other, 'o-2'), 429, 'too_many_streams');
    await Promise.all(open.map((sse) => sse.cancel()));
  });
});

describe('revocation', () => {
  const revoked = async (deactivate: (provider: TestProvider) => Promise<unknown>, code: string) => {
    const { app, hub } = appWithHub();
    const provider = await createTestProvider(database.db, 'platform');
    const streams = [await openStream(app, tokenFor(provider, 'r-1')), await openStream(app, tokenFor(provider, 'r-2'))];
    const bystander = await openStream(app, tokenFor(platform, 'stays'));
    await deactivate(provider);
    await Promise.all(streams.map((sse) => sse.ended()));
    expect(hub.streams.size).toBe(1);
    expect(bystander.isEnded).toBe(false);
    await expectRefused(app, tokenFor(provider, 'r-3'), 403, code);
    await bystander.cancel();
  };

  it("ends a deactivated provider's streams and refuses its tokens", () =>
    revoked(
      (provider) => updateProvider({ db: database.db }, { providerId: provider.id, status: 'inactive' }),
      'provider_inactive',
    ));

  it("does the same when the provider's last active credential is deactivated", () =>
    revoked((provider) => updateCredential({ db: database.db }, { key: provider.key, status: 'inactive' }), 'provider_inactive'));
});

describe('a stream for a user not registered yet', () => {
  it('waits on the registration channel without reading Postgres, and follows the user once announced', async () => {
    const platformUserId = `waiting-1-${randomUUID()}`;
    const { app } = appWithHub();
    const sse = await openStream(app, tokenFor(platform, platformUserId));
    const registration = registrationChannel(api.config.QUEUE_PREFIX, platform.id, platformUserId);
    await eventually(async () => ((await subscribers(registration)) === 1 ? true : undefined), {
      what: 'registration subscription',
    });

    // Stored behind the API's back (no notice): a polling stream would find the user; this one must not.
    const userId = await createTestUser(database.db, platform.id, platformUserId);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await subscribers(progressChannel(api.config.QUEUE_PREFIX, userId))).toBe(0);

    expect(await api.deps.redis.publish(registration, userId), 'subscribers the notice reached').toBe(1);
    await eventually(
      async () => ((await subscribers(progressChannel(api.config.QUEUE_PREFIX, userId))) === 1 ? true : undefined),
      {
        what: 'the stream to follow the user',
      },
    );
    expect(await subscribers(registration)).toBe(0);
    const message = { quest_chain_ids: ['c-1'], changed_at: '2026-01-02T03:04:05.678Z' };
    await api.deps.redis.publish(progressChannel(api.config.QUEUE_PREFIX, userId), JSON.stringify(message));
    expect(JSON.parse((await sse.nextEvent('progress')).data!)).toEqual(message);
    await sse.cancel();
  });

  it('is announced by POST /v1/users/register', async () => {
    const platformUserId = `waiting-2-${randomUUID()}`;
    const { app } = appWithHub();
    const sse = await openStream(app, tokenFor(platform, platformUserId));
    const registration = registrationChannel(api.config.QUEUE_PREFIX, platform.id, platformUserId);
    await eventually(async () => ((await subscribers(registration)) === 1 ? true : undefined), {
      what: 'registration subscription',
    });
    const answer = await api.call('POST', '/v1/users/register', {
      headers: platform.headers,
      body: { platform_user_id: platformUserId },
    });
    const userId = answer.json.data.user_id as string;
    await eventually(
      async () => ((await subscribers(progressChannel(api.config.QUEUE_PREFIX, userId))) === 1 ? true : undefined),
      {
        what: 'the stream to follow the registered user',
      },
    );
    await sse.cancel();
  });
});

describe('a stream whose registration subscription Redis confirms late', () => {
  // The stream stops waiting for Redis to confirm its subscription after
  // subscribeTimeoutMs, sends `ready` and looks for the user once. A
  // registration after that look but before the SUBSCRIBE reaches Redis sends
  // its notice to nobody; the stream must look again once Redis confirms.
  // Here the hub's own connection holds its writes (a corked socket: the
  // SUBSCRIBE stays in the client) while the user registers over the API.
  it('follows a user who registered while its SUBSCRIBE had not reached Redis', async () => {
    const platformUserId = `late-${randomUUID()}`;
    const { app, subscriber } = appWithHub(undefined, { subscribeTimeoutMs: 50 });
    await subscriber.ping(); // connected, so the SUBSCRIBE goes to the socket, not the offline queue
    subscriber.stream.cork();
    const sse = await openStream(app, tokenFor(platform, platformUserId));
    const registration = registrationChannel(api.config.QUEUE_PREFIX, platform.id, platformUserId);
    expect(await subscribers(registration)).toBe(0);
    // Let the stream's one look after `ready` find nobody.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const answer = await api.call('POST', '/v1/users/register', {
      headers: platform.headers,
      body: { platform_user_id: platformUserId },
    });
    expect(answer.status).toBe(200);
    const userId = answer.json.data.user_id as string;

    subscriber.stream.uncork();
    await eventually(
      async () => ((await subscribers(progressChannel(api.config.QUEUE_PREFIX, userId))) === 1 ? true : undefined),
      {
        what: 'the stream to follow the user once Redis confirmed its subscription',
        timeoutMs: 10_000,
      },
    );
    const message = { quest_chain_ids: ['c-late'], changed_at: '2026-01-02T03:04:05.678Z' };
    await api.deps.redis.publish(progressChannel(api.config.QUEUE_PREFIX, userId), JSON.stringify(message));
    expect(JSON.parse((await sse.nextEvent('progress')).data!)).toEqual(message);
    await sse.cancel();
  });
});

describe('CORS (product rules §8)', () => {
  const origin = 'https://games.example';

  it('answers the preflight and puts the headers on the stream and on its errors (default `*`)', async () => {
    const preflight = await api.app.request('/v1/live?token=x', {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'last-event-id' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('last-event-id');

    const stream = await api.app.request(`/v1/live?token=${tokenFor(platform, 'cors-1')}`, { headers: { origin } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('access-control-allow-origin')).toBe('*');
    const sse = readSse(stream.body!);
    await sse.nextEvent('ready');
    await sse.cancel();

    const refused = await api.app.request('/v1/live?token=forged', { headers: { origin } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('with LIVE_ALLOWED_ORIGINS, allows only those origins', async () => {
    const listed: TestApp = await createTestApp(database, { LIVE_ALLOWED_ORIGINS: `${origin}, https://other.example` });
    closers.push(() => listed.close());
    const preflight = (from: string) =>
      listed.app.request('/v1/live', { method: 'OPTIONS', headers: { origin: from, 'access-control-request-method': 'GET' } });
    const allowed = await preflight(origin);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(origin);
    expect(allowed.headers.get('vary')).toContain('Origin');
    expect((await preflight('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();

    const stream = await listed.app.request(`/v1/live?token=${tokenFor(platform, 'cors-2')}`, { headers: { origin } });
    expect(stream.headers.get('access-control-allow-origin')).toBe(origin);
    await readSse(stream.body!).cancel();
  });
});
