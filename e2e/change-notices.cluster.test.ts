import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { taskCompletions, users } from '../shared/db/schema/index.js';
import { senderUserId } from '../shared/domain/ids.js';
import { CHANGED_USER_BUCKETS, changedUsersChannel } from '../shared/live/channel.js';
import { bucketOf } from '../shared/queue/partitions.js';
import { eventually } from '../shared/testing/eventually.js';
import { answerCacheServing, cutNoticeConnections } from './harness/notice-connections.js';
import { type LocalCluster, startLocalCluster } from './harness/redis-cluster.js';
import { clientOf, type ServiceProcess } from './harness/service.js';
import { type Stack, startStack } from './harness/stack.js';
import { createPlayChain } from './support/play-chain.js';
import { quiescent } from './support/progress-model.js';

// Cached GET active answers on a Redis Cluster stay fresh: every change notice reaches every API
// (each channel subscribed on the master owning it), and an API whose notices may not arrive serves
// no cached answer. A long definitions cache, so only notices can explain a fresh read.

let cluster: LocalCluster;
let stack: Stack | undefined;
beforeAll(async () => {
  cluster = await startLocalCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

interface World {
  stack: Stack;
  apis: ServiceProcess[];
  chainId: string;
  platform: { id: string; headers: Record<string, string> };
  users: string[];
}

async function startWorld(label: string, userCount: number): Promise<World> {
  stack = await startStack(label, {
    apiCount: 2,
    workerCount: 2,
    redis: { url: cluster.url, cluster: true },
    env: { MATCHING_PARTITIONS: '4', CHAIN_CACHE_TTL_MS: '60000' },
  });
  const current = stack;
  const platform = await current.createProvider('platform');
  const advertiser = await current.createProvider('advertiser');
  const chainId = await createPlayChain(current, platform.id, advertiser.id);
  const users = Array.from({ length: userCount }, (_, i) => `fresh-${i}`);
  await inParallel(users, 16, async (id) => {
    const answer = await current.call('POST', '/v1/users/register', {
      headers: platform.headers,
      body: { platform_user_id: id },
    });
    expect(answer.status).toBe(200);
  });
  await eventually(() => quiescent(current.database), { timeoutMs: 60_000, what: 'registrations evaluated' });
  const apis = current.apis;
  for (const api of apis) await eventually(async () => ((await servingOf(api)) ? true : undefined), { what: 'serving' });
  return { stack: current, apis, chainId, platform, users };
}

async function inParallel<T>(items: T[], concurrency: number, run: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await run(items[next++]!);
    }),
  );
}

const completed = async (world: World, api: ServiceProcess, user: string): Promise<boolean> => {
  const answer = await clientOf(api).call('GET', `/v1/quest-chains/active/${user}`, { headers: world.platform.headers });
  expect(answer.status).toBe(200);
  return answer.json.data.quest_chains[0].user_progress.completed_tasks === 1;
};

/**
 * The worker announces a change just after its commit: a read right after Postgres shows the change
 * may come before the notice's trip. Allowed 500 ms; a lost notice costs the answer's TTL (minutes).
 */
const NOTICE_TRIP_MS = 500;

/** Whether a read shows the user's completion within NOTICE_TRIP_MS. */
const freshSoon = (world: World, api: ServiceProcess, user: string): Promise<boolean> =>
  eventually(async () => ((await completed(world, api, user)) ? true : undefined), {
    timeoutMs: NOTICE_TRIP_MS,
    intervalMs: 50,
  }).catch(() => false);

const servingOf = async (api: ServiceProcess): Promise<boolean> => (await answerCacheServing(api.url)) === true;

const play = (world: World, users: string[]) =>
  inParallel(chunks(users, 100), 4, async (batch) => {
    const events = batch.map((user) => ({ user_id: user, event_type: 'play', timestamp: new Date().toISOString() }));
    const answer = await world.stack.call('POST', '/v1/events/batch', { headers: world.platform.headers, body: { events } });
    expect(answer.status).toBe(200);
  });

const chunks = <T>(items: T[], size: number) =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/** When each user's completion was first seen in Postgres (polled every 100 ms): the change a read must show within 2 s. */
function watchCompletions(world: World) {
  const firstSeen = new Map<string, number>();
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const rows = await world.stack.database.db.select({ userId: taskCompletions.userId }).from(taskCompletions);
      const now = Date.now();
      for (const { userId } of rows) if (!firstSeen.has(userId)) firstSeen.set(userId, now);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    firstSeen,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

describe('change notices on a Redis Cluster', () => {
  it('reads right after matching are fresh for 1,000 users, through both APIs', async () => {
    const world = await startWorld('notices_fresh', 1000);
    // Every answer cached on both APIs before the change.
    await inParallel(world.users, 16, async (user) => {
      for (const api of world.apis) expect(await completed(world, api, user)).toBe(false);
    });
    await play(world, world.users);
    await eventually(() => quiescent(world.stack.database), { timeoutMs: 120_000, what: 'every event matched' });
    const stale: string[] = [];
    await inParallel(world.users, 16, async (user) => {
      for (const [index, api] of world.apis.entries())
        if (!(await freshSoon(world, api, user))) stale.push(`${user}@api${index}`);
    });
    expect(stale).toEqual([]);
  });

  it('with a notice channel master failed over mid-load, no read is stale more than 2 s after its change', async () => {
    const world = await startWorld('notices_failover', 300);
    const rows = await world.stack.database.db.select({ id: users.id, platformUserId: users.platformUserId }).from(users);
    const ids = new Map<string, string>(rows.map((row) => [row.platformUserId, row.id]));
    const watch = watchCompletions(world);
    const staleness: number[] = [];
    let polling = true;
    const pollers = world.apis.map(async (api) => {
      let i = 0;
      while (polling) {
        const user = world.users[i++ % world.users.length]!;
        const startedAt = Date.now();
        const fresh = await completed(world, api, user).catch(() => true);
        const seenAt = watch.firstSeen.get(ids.get(user)!);
        if (!fresh && seenAt !== undefined && seenAt < startedAt) staleness.push(startedAt - seenAt);
      }
    });
    const halves = chunks(world.users, world.users.length / 2);
    await play(world, halves[0]!);
    const { from, to } = await cluster.failover(`{${world.stack.queuePrefix}:read:changes}`);
    expect(to.port).not.toBe(from.port);
    await play(world, halves[1]!);
    await eventually(() => quiescent(world.stack.database), { timeoutMs: 120_000, what: 'every event matched' });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    polling = false;
    await Promise.all(pollers);
    await watch.stop();
    expect(watch.firstSeen.size).toBe(world.users.length);
    expect(Math.max(0, ...staleness), `stale reads (ms after the change): ${staleness.length}`).toBeLessThanOrEqual(2000);
    for (const api of world.apis) expect(await servingOf(api)).toBe(true);
  });

  it("follows a notice channel's slot to its new master: a read after the move is fresh within 2 s of the change", async () => {
    const world = await startWorld('notices_slot_move', 4);
    const user = world.users[0]!;
    const [row] = await world.stack.database.db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.platformUserId, senderUserId(user)));
    // The bucket channel the worker announces this user's progress on.
    const channel = changedUsersChannel(world.stack.queuePrefix, bucketOf(row!.id, CHANGED_USER_BUCKETS));
    for (const api of world.apis) expect(await completed(world, api, user)).toBe(false);
    const { from, to } = await cluster.moveSlot(channel);
    expect(to.port).not.toBe(from.port);
    await play(world, [user]);
    await eventually(() => quiescent(world.stack.database), { what: 'the event matched' });
    const matchedAt = Date.now();
    for (const api of world.apis)
      await eventually(async () => ((await completed(world, api, user)) ? true : undefined), {
        what: 'a fresh read after the slot move',
        timeoutMs: 2000,
      });
    expect(Date.now() - matchedAt).toBeLessThanOrEqual(2000);
  });

  it("stops serving cached answers within a second of an API's notice connections being cut, and resumes once subscribed", async () => {
    const world = await startWorld('notices_cut', 10);
    const cutAt = Date.now();
    const cut = await cutNoticeConnections(cluster.ports, world.stack.queuePrefix);
    expect(cut).toBeGreaterThanOrEqual(world.apis.length);
    for (const api of world.apis)
      await eventually(async () => ((await servingOf(api)) ? undefined : true), { what: 'serving off', timeoutMs: 1000 });
    expect(Date.now() - cutAt).toBeLessThan(1500);
    for (const api of world.apis)
      await eventually(async () => ((await servingOf(api)) ? true : undefined), { what: 'serving again', timeoutMs: 10_000 });
    // And the answers are fresh after it: a change made now shows on both APIs as soon as its notice arrives.
    const [user] = world.users;
    for (const api of world.apis) expect(await completed(world, api, user!)).toBe(false);
    await play(world, [user!]);
    await eventually(() => quiescent(world.stack.database), { what: 'the event matched' });
    for (const api of world.apis) expect(await freshSoon(world, api, user!)).toBe(true);
  });
});
