import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { insertOrFindEvents } from '../../shared/db/event-store.js';
import { chainProgress } from '../../shared/db/schema/index.js';
import { type ServiceUserId, senderUserId } from '../../shared/domain/ids.js';
import { parseUtcTimestamp } from '../../shared/domain/timestamp.js';
import { createChainOf2026, createTestUser } from '../../shared/testing/chains.js';
import { seededRandom } from '../../shared/testing/random.js';
import { useTestData } from '../../shared/testing/test-data.js';
import { matchBatch } from './match-batch.js';
import { WalkCache } from './walk-cache.js';

// Late events added to the tally of a counted, summed or streak task they
// leave open (docs/matching.md, "Late events absorbed"): the worker does so
// only for a walk it kept itself, whose open tasks counted no event still
// pending, and the result is the full recompute's.

const { database, platform, advertiser } = useTestData('late-absorbed');
const SEED = 20_261_129;
const MARCH = parseUtcTimestamp('2026-03-01T00:00:00Z')!;
const HOUR_US = 3_600_000_000n;

async function send(platformUserId: string, eventType: string, occurredUs: bigint, amount?: number) {
  const [stored] = await insertOrFindEvents(database.db, [
    {
      providerId: platform.id,
      userId: senderUserId(platformUserId),
      eventType,
      occurredAt: occurredUs,
      ...(amount === undefined ? {} : { amount, currency: 'USD' }),
    },
  ]);
  return stored!.id;
}

const chainOf = (name: string, spec: Parameters<typeof createChainOf2026>[3]) =>
  createChainOf2026(database.db, { platformId: platform.id, advertiserId: advertiser.id }, name, spec);

const tallies = async (userId: ServiceUserId) =>
  (await database.db.select({ tallies: chainProgress.tallies }).from(chainProgress).where(eq(chainProgress.userId, userId)))
    .map((row) => JSON.stringify(row.tallies))
    .sort();

describe('late events absorbed into open tallies', () => {
  it('a late event toward an open counted task is added to its tally without a redo, by the worker that kept the walk', async () => {
    await chainOf('ten trades', { tasks: [{ event: 'la-trade', min_count: 10 }] });
    const userId = await createTestUser(database.db, platform.id, 'la-one');
    const cache = new WalkCache(1_000);
    const batch = async (eventIds: string[], walkCache?: WalkCache) =>
      matchBatch({ db: database.db, ...(walkCache ? { walkCache } : {}) }, { eventIds, evaluateUserIds: [] });

    await batch(
      [await send('la-one', 'la-trade', MARCH + 2n * HOUR_US), await send('la-one', 'la-trade', MARCH + 4n * HOUR_US)],
      cache,
    );
    const absorbed = await batch([await send('la-one', 'la-trade', MARCH + 3n * HOUR_US)], cache);
    expect(absorbed).toMatchObject({ recomputed: 0, absorbed: 1 });
    expect(await tallies(userId)).toEqual([expect.stringContaining('"count":3')]);

    // A worker without the walk kept (another process, or this one restarted) cannot tell what its row counted: it redoes.
    const redone = await batch([await send('la-one', 'la-trade', MARCH + 1n * HOUR_US)]);
    expect(redone).toMatchObject({ recomputed: 1, absorbed: 0 });
    expect(await tallies(userId)).toEqual([expect.stringContaining('"count":4')]);
  });

  it('over a random run of late events, re-sends and several workers, the walks are what the full recompute makes', async () => {
    const random = seededRandom(SEED);
    await chainOf('counted', { tasks: [{ event: 'lr-a', min_count: 40 }] });
    await chainOf('summed then counted', {
      tasks: [
        { event: 'lr-b', min_total: 500 },
        { event: 'lr-a', min_count: 6 },
      ],
    });
    await chainOf('streak', { tasks: [{ event: 'lr-a', streak: { periods: 4, every: 'day' } }] });
    await chainOf('any order', {
      anyOrder: true,
      tasks: [
        { event: 'lr-b', min_count: 30 },
        { event: 'lr-a', min_count: 8 },
      ],
    });
    const names = ['lr-u1', 'lr-u2', 'lr-u3'];
    const userIds: ServiceUserId[] = [];
    for (const name of names) userIds.push(await createTestUser(database.db, platform.id, name));
    // Two workers with walks of their own, and now and then one with none.
    const caches = [new WalkCache(1_000), new WalkCache(1_000)];
    const sent: string[] = [];
    let absorbed = 0;
    let redone = 0;
    // Each round's events are stored a round before they are matched: a redo's history then holds events still
    // pending, which it must leave to their own batch (else that batch would count them a second time).
    let next: string[] = [];
    for (let round = 0; round <= 80; round++) {
      const eventIds = next;
      next = [];
      for (let i = round < 80 ? random.int(1, 6) : 0; i > 0; i--) {
        if (sent.length > 0 && random.chance(0.1)) next.push(random.pick(sent));
        else {
          const at = MARCH + BigInt(random.int(0, 6 * 24 * 60)) * 60_000_000n;
          next.push(await send(random.pick(names), random.pick(['lr-a', 'lr-b']), at, random.int(0, 60)));
        }
      }
      sent.push(...next);
      const worker = random.chance(0.1) ? undefined : random.pick(caches);
      const outcome = await matchBatch(
        { db: database.db, ...(worker ? { walkCache: worker } : {}) },
        { eventIds, evaluateUserIds: [] },
      );
      absorbed += outcome.absorbed;
      redone += outcome.recomputed;
    }
    const before = await Promise.all(userIds.map(tallies));
    // The full recompute of every walk (a re-evaluation, no walk kept) finds nothing to change.
    const check = await matchBatch({ db: database.db }, { eventIds: [], evaluateUserIds: userIds });
    expect(check.changes).toEqual([]);
    expect(await Promise.all(userIds.map(tallies))).toEqual(before);
    // Both paths ran: late events absorbed, and redone (a walk read from Postgres, or a completion that moved).
    expect(absorbed).toBeGreaterThan(10);
    expect(redone).toBeGreaterThan(10);
  });
});
