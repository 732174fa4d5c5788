import { eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { insertOrFindEvents, reverseEvents } from '../../shared/db/event-store.js';
import { loadWalks, type StoredWalk } from '../../shared/db/progress-store.js';
import { taskCompletions, users } from '../../shared/db/schema/index.js';
import { withTransaction } from '../../shared/db/transaction.js';
import { type ServiceUserId, senderUserId } from '../../shared/domain/ids.js';
import { parseUtcTimestamp } from '../../shared/domain/timestamp.js';
import { walkKey } from '../../shared/domain/walk-key.js';
import { createChainOf2026, createTestChain, createTestUser } from '../../shared/testing/chains.js';
import { seededRandom } from '../../shared/testing/random.js';
import { useTestData } from '../../shared/testing/test-data.js';
import { matchBatch } from './match-batch.js';
import { WalkCache } from './walk-cache.js';

// Walks kept between batches (docs/matching.md): an entry the worker uses must
// be exactly what Postgres holds, so matching with the cache is matching
// without it. Checked after every batch of a random run with late events,
// re-sends, reversals, a repeating chain and a counted task; and a walk
// written by anyone else must never be reused.

const { database, platform, advertiser } = useTestData('walk-cache');
const SEED = 20_261_127;

const byKey = (walks: readonly StoredWalk[]) =>
  [...walks].sort((a, b) => (walkKey(a.userId, a.chainId, a.runStartUs) < walkKey(b.userId, b.chainId, b.runStartUs) ? -1 : 1));

async function send(platformUserId: string, eventType: string, occurredUs: bigint) {
  const [stored] = await insertOrFindEvents(database.db, [
    { providerId: platform.id, userId: senderUserId(platformUserId), eventType, occurredAt: occurredUs },
  ]);
  return stored!.id;
}

async function storedVersion(userId: ServiceUserId) {
  const [row] = await database.db.select({ version: users.walksVersion }).from(users).where(eq(users.id, userId));
  return row!.version;
}

/** Every entry the cache holds for these users against what Postgres holds now; answers how many it held. */
async function expectKeptAsStored(cache: WalkCache, userIds: readonly ServiceUserId[]) {
  const held = cache.held(userIds);
  for (const [userId, kept] of held) {
    expect(kept.version, `version of ${userId}`).toBe(await storedVersion(userId));
    expect(byKey([...kept.walks.values()]), `walks of ${userId}`).toEqual(byKey(await loadWalks(database.db, [userId])));
  }
  return held.size;
}

describe('walks kept between batches', () => {
  it('hold exactly what Postgres holds after every batch of a random run', async () => {
    const random = seededRandom(SEED);
    const chain = (name: string, spec: Parameters<typeof createChainOf2026>[3]) =>
      createChainOf2026(database.db, { platformId: platform.id, advertiserId: advertiser.id }, name, spec);
    await chain('ordered', { tasks: [{ event: 'wc-a' }, { event: 'wc-b' }, { event: 'wc-c' }] });
    await chain('any order', { anyOrder: true, tasks: [{ event: 'wc-b' }, { event: 'wc-d' }] });
    await chain('daily', { recurrence: { every: 'day', timezone: 'UTC' }, tasks: [{ event: 'wc-a' }, { event: 'wc-d' }] });
    await chain('counted', { tasks: [{ event: 'wc-c', min_count: 3 }] });
    const names = ['wc-u1', 'wc-u2', 'wc-u3', 'wc-u4', 'wc-u5'];
    const ids = new Map<string, ServiceUserId>();
    for (const name of names) ids.set(name, await createTestUser(database.db, platform.id, name));
    const userIds = [...ids.values()];

    const cache = new WalkCache(1_000);
    const sent: string[] = [];
    const start = parseUtcTimestamp('2026-03-01T00:00:00Z')!;
    let reused = 0;
    let checked = 0;
    for (let round = 0; round < 60; round++) {
      const eventIds: string[] = [];
      for (let i = random.int(1, 8); i > 0; i--) {
        // Re-sends of an earlier event, and times over four days in any order: late events, redone walks.
        if (sent.length > 0 && random.chance(0.1)) eventIds.push(random.pick(sent));
        else
          eventIds.push(
            await send(
              random.pick(names),
              random.pick(['wc-a', 'wc-b', 'wc-c', 'wc-d']),
              start + BigInt(random.int(0, 4 * 86_400)) * 1_000_000n,
            ),
          );
      }
      sent.push(...eventIds);
      reused += (await matchBatch({ db: database.db, walkCache: cache }, { eventIds, evaluateUserIds: [] })).walksReused;
      if (random.chance(0.25)) {
        // A refund of an earlier event, and the re-evaluation of everyone (a full recompute, through the cache too).
        await reverseEvents(database.db, platform.id, [{ eventId: random.pick(sent), reason: 'refund' }]);
        reused += (await matchBatch({ db: database.db, walkCache: cache }, { eventIds: [], evaluateUserIds: userIds }))
          .walksReused;
      }
      checked += await expectKeptAsStored(cache, userIds);
    }
    // The run used the cache (else it proves nothing) and checked entries both written and only read.
    expect(reused).toBeGreaterThan(20);
    expect(checked).toBeGreaterThan(100);
    expect(await database.db.$count(taskCompletions, inArray(taskCompletions.userId, userIds))).toBeGreaterThan(5);
  });

  it('never reuses walks another writer changed: the version moved, so they are loaded again', async () => {
    const { taskIds } = await createTestChain(database.db, platform.id, advertiser.id, {
      start: '2026-01-01T00:00:00Z',
      end: '2027-01-01T00:00:00Z',
      reward: false,
      tasks: [{ event: 'wo-a' }, { event: 'wo-b' }, { event: 'wo-c' }],
    });
    const userId = await createTestUser(database.db, platform.id, 'wo-user');
    const at = (day: number) => parseUtcTimestamp(`2026-03-0${day}T00:00:00Z`)!;
    const cache = new WalkCache(1_000);

    await matchBatch(
      { db: database.db, walkCache: cache },
      { eventIds: [await send('wo-user', 'wo-a', at(1))], evaluateUserIds: [] },
    );
    // Another worker (no cache of its own here) matches the second task.
    await matchBatch({ db: database.db }, { eventIds: [await send('wo-user', 'wo-b', at(2))], evaluateUserIds: [] });
    const third = await matchBatch(
      { db: database.db, walkCache: cache },
      { eventIds: [await send('wo-user', 'wo-c', at(3))], evaluateUserIds: [] },
    );

    expect(third.walksReused).toBe(0);
    const done = await database.db
      .select({ taskId: taskCompletions.taskId })
      .from(taskCompletions)
      .where(eq(taskCompletions.userId, userId));
    expect(done.map((row) => row.taskId).sort()).toEqual([...taskIds].sort());
    await expectKeptAsStored(cache, [userId]);
  });

  it("moves a user's version on any write of their walks, by the writing transaction's id", async () => {
    const userId = await createTestUser(database.db, platform.id, 'wv-user');
    await createTestChain(database.db, platform.id, advertiser.id, {
      start: '2026-01-01T00:00:00Z',
      end: '2027-01-01T00:00:00Z',
      reward: false,
      tasks: [{ event: 'wv-a' }],
    });
    expect(await storedVersion(userId)).toBe(0n);
    const matched = await matchBatch(
      { db: database.db },
      { eventIds: [await send('wv-user', 'wv-a', parseUtcTimestamp('2026-03-01T00:00:00Z')!)], evaluateUserIds: [] },
    );
    expect(matched.changes.map((c) => c.userId)).toEqual([userId]);
    const afterMatch = await storedVersion(userId);
    expect(afterMatch).not.toBe(0n);

    // An operator's statement, outside the matcher: each kind of write moves it to that transaction.
    for (const statement of [
      sql`update chain_progress set updated_at = now() where user_id = ${userId}`,
      sql`update task_completions set recorded_at = now() where user_id = ${userId}`,
      sql`delete from task_completions where user_id = ${userId}`,
    ]) {
      const before = await storedVersion(userId);
      const writer = await withTransaction(database.db, async (tx) => {
        await tx.execute(statement);
        const [row] = await tx.execute<{ id: string }>(sql`select pg_current_xact_id()::text as id`);
        return BigInt(row!.id);
      });
      const after = await storedVersion(userId);
      expect(after, String(statement.queryChunks[0])).toBe(writer);
      expect(after).not.toBe(before);
    }
  });
});
