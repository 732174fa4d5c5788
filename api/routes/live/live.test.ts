import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainProgress, users } from '../../../shared/db/schema/index.js';
import { type ServiceUserId, senderUserId, serviceUserId } from '../../../shared/domain/ids.js';
import { dateToMicros, parseUtcTimestamp } from '../../../shared/domain/timestamp.js';
import { progressChannel, registrationChannel } from '../../../shared/live/channel.js';
import { LiveTokenSigner } from '../../../shared/live/token.js';
import { createLogger } from '../../../shared/observability/logger.js';
import { createRedis } from '../../../shared/queue/connection.js';
import { createTestChain } from '../../../shared/testing/chains.js';
import { eventually } from '../../../shared/testing/eventually.js';
import { createApp } from '../../app.js';
import { LiveHub } from '../../live/hub.js';
import { listen } from '../../testing/http-server.js';
import { readSse } from '../../testing/sse-reader.js';
import { useTestService } from '../../testing/test-service.js';

const HEARTBEAT_MS = 150;
const { database, api, platform, advertiser } = useTestService('live');
let hub: LiveHub;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  // The same app with a hub on a short heartbeat, so heartbeats happen within a test.
  hub = new LiveHub({
    redis: createRedis(api.config.REDIS_URL, 'subscriber'),
    queuePrefix: api.config.QUEUE_PREFIX,
    logger: createLogger({ level: 'silent', name: 'live-test' }),
    heartbeatMs: HEARTBEAT_MS,
  });
  app = createApp({ ...api.deps, liveHub: hub });
});
afterAll(async () => {
  await hub.close();
});

const tokenFor = (platformUserId: string, now?: number) =>
  api.deps.liveTokens.issue({ platformId: platform.id, platformUserId, livemode: true }, now);

async function register(platformUserId: string): Promise<ServiceUserId> {
  const answer = await api.call('POST', '/v1/users/register', {
    headers: platform.headers,
    body: { platform_user_id: platformUserId },
  });
  return answer.json.data.user_id as ServiceUserId;
}

async function open(query: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await app.request(`/v1/live?${new URLSearchParams(query)}`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  return readSse(response.body!);
}

const publish = (userId: string, message: { quest_chain_ids: string[]; changed_at: string }) =>
  api.deps.redis.publish(progressChannel(api.config.QUEUE_PREFIX, userId), JSON.stringify(message));

const subscribers = async (userId: string) => {
  const reply = (await api.deps.redis.call('pubsub', 'numsub', progressChannel(api.config.QUEUE_PREFIX, userId))) as [
    string,
    number,
  ];
  return Number(reply[1]);
};

describe('GET /v1/live: refusals', () => {
  it('answers 401 in the envelope for a missing, forged or expired token', async () => {
    const forged = new LiveTokenSigner(Buffer.from('another key entirely, 32+ bytes long')).issue({
      platformId: platform.id,
      platformUserId: 'u',
      livemode: true,
    });
    const expired = tokenFor('u', Date.now() - 2 * 60 * 60 * 1000);
    for (const query of ['', '?token=', '?token=garbage', `?token=${forged}`, `?token=${expired}`]) {
      const response = await app.request(`/v1/live${query}`);
      expect(response.status, query).toBe(401);
      expect(await response.json()).toMatchObject({ success: false, code: 'invalid_live_token', param: 'token' });
    }
  });

  it('answers 400 naming `since` when it is not a timestamp', async () => {
    for (const since of ['yesterday', '2026-01-02T03:04:05', '2026-02-30T00:00:00Z']) {
      const response = await app.request(`/v1/live?${new URLSearchParams({ token: tokenFor('u'), since })}`);
      expect(response.status, since).toBe(400);
      expect(((await response.json()) as { error: string }).error).toContain('since');
    }
  });
});

describe('GET /v1/live: the stream', () => {
  it('sends ready, relays progress messages published after it, and heartbeats', async () => {
    const userId = await register('stream-1');
    const sse = await open({ token: tokenFor('stream-1') });
    expect(JSON.parse((await sse.nextEvent('ready')).data!)).toEqual({ user_exists: true, livemode: true });
    const message = { quest_chain_ids: ['c-1'], changed_at: '2026-01-02T03:04:05.678Z' };
    await publish(userId, message);
    const progress = await sse.nextEvent('progress');
    expect(JSON.parse(progress.data!)).toEqual(message);
    expect(progress.id).toBe(message.changed_at);
    const heartbeat = await sse.next((frame) => frame.comment !== undefined, HEARTBEAT_MS * 4);
    expect(heartbeat.comment).toBe('keep-alive');
    await sse.cancel();
  });

  it('reports at once a change later than `since`, and nothing for an older or equal one', async () => {
    const userId = await register('since-1');
    const chain = await createTestChain(database.db, platform.id, advertiser.id, {
      name: 'c',
      start: '2020-01-01T00:00:00Z',
      end: '2099-01-01T00:00:00Z',
    });
    const changedAt = parseUtcTimestamp('2026-03-01T10:00:00.250Z')!;
    await database.db
      .update(users)
      .set({ progressChangedAt: changedAt })
      .where(eq(users.id, serviceUserId(userId)));
    await database.db
      .insert(chainProgress)
      .values({ userId, chainId: chain.id, completedTasks: 1, totalTasks: 2, updatedAt: changedAt });

    const behind = await open({ token: tokenFor('since-1'), since: '2026-03-01T10:00:00.249Z' });
    await behind.nextEvent('ready');
    const catchUp = await behind.next();
    expect(catchUp.event).toBe('progress');
    expect(JSON.parse(catchUp.data!)).toEqual({ quest_chain_ids: [chain!.id], changed_at: '2026-03-01T10:00:00.250Z' });
    await behind.cancel();

    for (const since of ['2026-03-01T10:00:00.250Z', '2026-03-01T10:00:00.250+00:00', '2026-03-01T10:00:01Z']) {
      const current = await open({ token: tokenFor('since-1'), since });
      await current.nextEvent('ready');
      // The next frame is the heartbeat: no catch-up came before it.
      expect((await current.next(undefined, HEARTBEAT_MS * 4)).comment).toBe('keep-alive');
      await current.cancel();
    }

    // `null` (a baseline of a user without changes) makes any recorded change news.
    const fromNull = await open({ token: tokenFor('since-1'), since: 'null' });
    await fromNull.nextEvent('ready');
    expect((await fromNull.next()).event).toBe('progress');
    await fromNull.cancel();
  });

  it("takes a reconnecting EventSource's Last-Event-ID as the baseline", async () => {
    const userId = await register('resume-1');
    await database.db
      .update(users)
      .set({ progressChangedAt: parseUtcTimestamp('2026-03-01T10:00:00.250Z')! })
      .where(eq(users.id, serviceUserId(userId)));
    const resumed = await open(
      { token: tokenFor('resume-1'), since: '2026-01-01T00:00:00Z' },
      { 'last-event-id': '2026-03-01T10:00:00.250Z' },
    );
    await resumed.nextEvent('ready');
    expect((await resumed.next(undefined, HEARTBEAT_MS * 4)).comment).toBe('keep-alive');
    await resumed.cancel();
  });

  it('waits for a user who registers after connecting, then reports their progress', async () => {
    const sse = await open({ token: tokenFor('late-1') });
    expect(JSON.parse((await sse.nextEvent('ready')).data!)).toEqual({ user_exists: false, livemode: true });
    const userId = await register('late-1');
    // The registration notice makes the stream follow the user, like any stream from then on.
    await eventually(async () => ((await subscribers(userId)) === 1 ? true : undefined), { what: 'subscription' });
    const message = { quest_chain_ids: ['c-late'], changed_at: '2026-01-02T03:04:05.678Z' };
    await publish(userId, message);
    expect(JSON.parse((await sse.nextEvent('progress')).data!)).toEqual(message);
    await sse.cancel();
  });

  it('reports at once the progress a user already has when their registration is announced', async () => {
    const sse = await open({ token: tokenFor('late-2') });
    await sse.nextEvent('ready');
    // Stored with progress in one statement (the stream's own look for the user may find it at any
    // moment), then announced: all of that progress happened after the stream connected.
    const [stored] = await database.db
      .insert(users)
      .values({ platformId: platform.id, platformUserId: senderUserId('late-2'), progressChangedAt: dateToMicros(new Date()) })
      .returning({ id: users.id });
    const userId = stored!.id;
    await api.deps.redis.publish(registrationChannel(api.config.QUEUE_PREFIX, platform.id, 'late-2'), userId);
    const caughtUp = await sse.nextEvent('progress');
    expect(JSON.parse(caughtUp.data!).quest_chain_ids).toEqual([]);
    await sse.cancel();
  });

  it("shares one subscription among a user's streams and drops it when the last client leaves", async () => {
    const userId = await register('shared-1');
    const first = await open({ token: tokenFor('shared-1') });
    const second = await open({ token: tokenFor('shared-1') });
    await Promise.all([first.nextEvent('ready'), second.nextEvent('ready')]);
    expect(await subscribers(userId)).toBe(1);

    await first.cancel();
    await eventually(async () => (hub.size.streams === 1 ? true : undefined), { what: 'first stream to end' });
    const message = { quest_chain_ids: ['c-2'], changed_at: '2026-01-02T03:04:05.678Z' };
    await publish(userId, message);
    expect(JSON.parse((await second.nextEvent('progress')).data!)).toEqual(message);

    await second.cancel();
    await eventually(async () => (hub.size.streams === 0 && (await subscribers(userId)) === 0 ? true : undefined), {
      what: 'the channel to be released',
    });
    expect(hub.size.channels).toBe(0);
  });
});

describe('GET /v1/live over a real socket', () => {
  it('releases the stream and its subscription when the client disconnects', async () => {
    const userId = await register('socket-1');
    const server = await listen(app);
    try {
      const abort = new AbortController();
      const response = await fetch(`${server.url}/v1/live?token=${tokenFor('socket-1')}`, { signal: abort.signal });
      const sse = readSse(response.body!);
      await sse.nextEvent('ready');
      expect(await subscribers(userId)).toBe(1);
      abort.abort();
      await eventually(async () => (hub.size.streams === 0 && (await subscribers(userId)) === 0 ? true : undefined), {
        what: 'the server to notice the disconnect',
      });
    } finally {
      await server.close();
    }
  });
});

describe('LiveHub.close', () => {
  it('ends every open stream and refuses new ones', async () => {
    await register('close-1');
    const ownHub = new LiveHub({
      redis: createRedis(api.config.REDIS_URL, 'subscriber'),
      queuePrefix: api.config.QUEUE_PREFIX,
      logger: createLogger({ level: 'silent', name: 'live-test' }),
    });
    const ownApp = createApp({ ...api.deps, liveHub: ownHub });
    const streams = await Promise.all(
      ['close-1', 'close-unregistered'].map(async (id) => {
        const response = await ownApp.request(`/v1/live?token=${tokenFor(id)}`);
        const sse = readSse(response.body!);
        await sse.nextEvent('ready');
        return sse;
      }),
    );
    expect(ownHub.size.streams).toBe(2);
    await ownHub.close();
    await Promise.all(streams.map((sse) => sse.ended()));
    expect(streams.every((sse) => sse.isEnded)).toBe(true);
    expect(ownHub.size).toEqual({ streams: 0, channels: 0 });
    expect((await ownApp.request(`/v1/live?token=${tokenFor('close-1')}`)).status).toBe(503);
  });
});
