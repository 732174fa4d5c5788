import { once } from 'node:events';
import { inArray } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.js';
import { insertOrFindEvents } from '../../shared/db/event-store.js';
import { pointEntries, rewardClaims } from '../../shared/db/schema/index.js';
import { type ServiceUserId, senderUserId } from '../../shared/domain/ids.js';
import { StandingsCache } from '../../shared/leaderboards/standings-cache.js';
import { createLogger } from '../../shared/observability/logger.js';
import { createRedis } from '../../shared/queue/connection.js';
import { createTestChain, createTestUser } from '../../shared/testing/chains.js';
import { recordChanges } from '../../shared/testing/change-notices.js';
import { uniqueSuffix } from '../../shared/testing/database.js';
import { createTestProvider } from '../../shared/testing/fixtures.js';
import { useTestData } from '../../shared/testing/test-data.js';
import type { CoreDeps } from '../deps.js';
import { reverseEvents } from '../events/reverse-events.js';
import { matchBatch } from '../matching/match-batch.js';
import { claimReward } from '../rewards/claim-reward.js';
import { createLeaderboard, storedLeaderboards } from './boards.js';
import { readStandings } from './read-standings.js';
import { refreshStandings } from './refresh-standings.js';

// §19 against an independent model: random events, reversals and concurrent
// claims go through the real matcher and claims, the standings through
// Redis (kept in step by refreshes) and Postgres (final periods, rebuilds);
// every read must equal what the model works out from the operations alone,
// with its own arithmetic for periods (Asia/Kolkata has no daylight saving:
// a fixed +05:30), its own order, and its own account of reversals.

// A fixed seed, as the domain's property tests use: the same operations every
// run, so the closing checks that the runs claimed and reversed enough cannot
// fail on an unlucky draw (unseeded, one CI run drew 16 claims in all, not 21).
const SEED = 20_261_128;

const { database, advertiser } = useTestData('leaderboard_model');
const redis = createRedis('redis://127.0.0.1:6379', 'producer');
const prefix = `test-lb-${uniqueSuffix()}`;
const config = parseConfig({ QUEUE_PREFIX: prefix, LEADERBOARD_SETTLE_MS: '0', LOG_LEVEL: 'silent' });
const enqueued: ServiceUserId[] = [];
const deps = () =>
  ({
    db: database.db,
    config,
    standings: new StandingsCache(redis, prefix),
    logger: createLogger({ level: 'silent', name: 'leaderboard-model' }),
    webhooks: { deliver: async () => true, deliverNew: async () => true },
    producer: {
      enqueue: async (_name: string, payloads: { userId: ServiceUserId }[]) => (
        enqueued.push(...payloads.map((p) => p.userId)), true
      ),
    },
    changes: recordChanges().changes,
    leaderboards: storedLeaderboards(database.db),
  }) as unknown as CoreDeps;

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const KOLKATA_MS = 5.5 * HOUR_MS;
// Ids whose byte order differs from UTF-16's and from case-insensitive order.
const USERS = ['B', 'a', 'ab', 'é', 'z', '😀'];
// Fewer for points, so claims meet the same users often (equal scores too).
const POINTS_USERS = ['B', 'a', 'é', '😀'];

beforeAll(async () => {
  // A producer connection takes no command before it is ready.
  if (redis.status !== 'ready') await once(redis, 'ready');
});

afterAll(async () => {
  // The test's keys only (the shared Redis has others'): its prefix.
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const bytes = (text: string) => Buffer.from(text, 'utf8');

interface ModelStanding {
  platformUserId: string;
  score: number;
  reachedMs: number;
}

/** The model's order, written out on its own: score down, reached up, the id's UTF-8 bytes up. */
function modelRanking(standings: Iterable<ModelStanding>) {
  return [...standings]
    .filter((s) => s.score > 0)
    .sort(
      (x, y) =>
        y.score - x.score || x.reachedMs - y.reachedMs || Buffer.compare(bytes(x.platformUserId), bytes(y.platformUserId)),
    )
    .map((s, i) => ({ rank: i + 1, platform_user_id: s.platformUserId, score: s.score }));
}

const wire = (entries: { rank: number; platformUserId: string; score: number }[]) =>
  entries.map((e) => ({ rank: e.rank, platform_user_id: e.platformUserId, score: e.score }));

async function flushStandings() {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
}

/** Every check a read can make against the model's ranking of one period. */
async function expectReadsMatch(
  platformId: string,
  boardId: string,
  period: { startUs: bigint },
  ranking: ReturnType<typeof modelRanking>,
  kept: number,
  final: boolean,
) {
  const shown = final ? ranking.slice(0, kept) : ranking;
  const top = await readStandings(deps(), { platformId, boardId, limit: 100, periodStartUs: period.startUs });
  expect(top.final).toBe(final);
  expect(wire(top.entries)).toEqual(shown);
  for (const user of USERS) {
    const around = await readStandings(deps(), {
      platformId,
      boardId,
      limit: 3,
      around: senderUserId(user),
      periodStartUs: period.startUs,
    });
    const at = shown.findIndex((e) => e.platform_user_id === user);
    expect(around.user && { rank: around.user.rank, score: around.user.score }).toEqual(
      at < 0 ? null : { rank: shown[at]!.rank, score: shown[at]!.score },
    );
    if (at < 0) continue;
    const first = Math.max(0, Math.min(at - 1, shown.length - 3));
    expect(wire(around.entries)).toEqual(shown.slice(first, first + 3));
  }
}

describe('chains completed, by period, against the model', () => {
  it('events and reversals over several days of a daily board in Asia/Kolkata', async () => {
    const now = Date.now();
    const boardStartMs = now - 3.5 * DAY_MS;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            {
              weight: 4,
              arbitrary: fc.record({
                kind: fc.constant('event' as const),
                user: fc.constantFrom(...USERS),
                chain: fc.integer({ min: 0, max: 2 }),
                // From before the board's start to a minute ago, on a grid so that ties in time happen.
                at: fc.integer({ min: 0, max: 4 * 24 * 4 }).map((quarter) => now - 4 * DAY_MS + quarter * 15 * MINUTE_MS),
              }),
            },
            { weight: 1, arbitrary: fc.record({ kind: fc.constant('reverse' as const), pick: fc.nat() }) },
            { weight: 1, arbitrary: fc.constant({ kind: 'match' as const }) },
          ),
          { minLength: 5, maxLength: 40 },
        ),
        async (ops) => {
          const platform = await createTestProvider(database.db, 'platform');
          const chains = await Promise.all(
            [0, 1, 2].map((k) =>
              createTestChain(database.db, platform.id, advertiser.id, {
                start: new Date(now - 5 * DAY_MS).toISOString(),
                end: new Date(now + 2 * DAY_MS).toISOString(),
                recurrence: { every: 'day', timezone: 'UTC' },
                tasks: [{ event: `c${k}` }],
                reward: false,
              }),
            ),
          );
          expect(chains).toHaveLength(3);
          for (const user of USERS) await createTestUser(database.db, platform.id, user);
          const board = await createLeaderboard(deps(), {
            platformId: platform.id,
            mode: 'live',
            name: 'Most chains',
            metric: 'chains_completed',
            startUs: BigInt(boardStartMs) * 1000n,
            endUs: null,
            recurrence: { every: 'day', timezone: 'Asia/Kolkata' },
            size: 4,
          });
          // The current period's set is built before anything happens, so what follows reaches it by refreshes.
          await readStandings(deps(), { platformId: platform.id, boardId: board.id, limit: 1 });

          const sent: { id: string; user: string; chain: number; at: number; reversed: boolean }[] = [];
          let unmatched: string[] = [];
          const matchAndRefresh = async () => {
            const outcome = await matchBatch({ db: database.db }, { eventIds: unmatched, evaluateUserIds: enqueued.splice(0) });
            unmatched = [];
            await refreshStandings(deps(), { userIds: outcome.standingsQueued });
          };
          for (const op of ops) {
            if (op.kind === 'event') {
              const [stored] = await insertOrFindEvents(database.db, [
                {
                  providerId: platform.id,
                  userId: senderUserId(op.user),
                  eventType: `c${op.chain}`,
                  occurredAt: BigInt(op.at) * 1000n,
                  // Same user, type and time is one event (§3): a repeat is a duplicate, as in the model.
                },
              ]);
              if (!sent.some((e) => e.id === stored!.id)) {
                sent.push({ id: stored!.id, user: op.user, chain: op.chain, at: op.at, reversed: false });
                unmatched.push(stored!.id);
              }
            } else if (op.kind === 'reverse' && sent.length > 0) {
              const event = sent[op.pick % sent.length]!;
              // Matched first: a reversal of an event still pending only drops it (docs/reversals.md), as the model does.
              await matchAndRefresh();
              await reverseEvents(deps(), { providerId: platform.id, reversals: [{ eventId: event.id, reason: 'model' }] });
              event.reversed = true;
              await matchAndRefresh();
            } else await matchAndRefresh();
          }
          await matchAndRefresh();

          // The model: a chain's run (a UTC day) completes at its first standing event; a board period is a
          // Kolkata day, cut at the board's start; a user's score is their completions in it, reached at the last.
          const completions = new Map<string, { user: string; at: number }>();
          for (const event of sent) {
            if (event.reversed) continue;
            const run = `${event.user}/${event.chain}/${Math.floor(event.at / DAY_MS)}`;
            const known = completions.get(run);
            if (!known || event.at < known.at) completions.set(run, { user: event.user, at: event.at });
          }
          const periodOf = (ms: number) => Math.max(boardStartMs, Math.floor((ms + KOLKATA_MS) / DAY_MS) * DAY_MS - KOLKATA_MS);
          const byPeriod = new Map<number, Map<string, ModelStanding>>();
          for (const { user, at } of completions.values()) {
            if (at < boardStartMs) continue;
            const period = periodOf(at);
            const users = byPeriod.get(period) ?? new Map<string, ModelStanding>();
            byPeriod.set(period, users);
            const standing = users.get(user) ?? { platformUserId: user, score: 0, reachedMs: 0 };
            users.set(user, { ...standing, score: standing.score + 1, reachedMs: Math.max(standing.reachedMs, at) });
          }
          const periods: number[] = [];
          for (
            let start = boardStartMs;
            start <= now;
            start = Math.floor((start + KOLKATA_MS) / DAY_MS + 1) * DAY_MS - KOLKATA_MS
          )
            periods.push(start);

          const current = periods.at(-1)!;
          // Kept in step: the current period's set answers the model without any rebuild.
          const cached = await deps().standings.read(
            { boardId: board.id, periodStartUs: BigInt(current) * 1000n },
            { limit: 100 },
          );
          expect(cached && wire(cached.entries)).toEqual(modelRanking(byPeriod.get(current)?.values() ?? []));
          for (const period of periods) {
            const ranking = modelRanking(byPeriod.get(period)?.values() ?? []);
            await expectReadsMatch(platform.id, board.id, { startUs: BigInt(period) * 1000n }, ranking, 4, period !== current);
          }
          // Redis loses everything: the same standings, rebuilt from Postgres.
          await flushStandings();
          await expectReadsMatch(
            platform.id,
            board.id,
            { startUs: BigInt(current) * 1000n },
            modelRanking(byPeriod.get(current)?.values() ?? []),
            4,
            false,
          );
        },
      ),
      { numRuns: 8, seed: SEED },
    );
  }, 240_000);
});

describe('points, against the model', () => {
  it('concurrent claims and reversals: credits less their reversals, reached at the last entry', async () => {
    let grantedInAll = 0;
    let reversedInAll = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            {
              weight: 3,
              arbitrary: fc.record({
                kind: fc.constant('event' as const),
                user: fc.constantFrom(...POINTS_USERS),
                chain: fc.integer({ min: 0, max: 1 }),
              }),
            },
            {
              weight: 3,
              arbitrary: fc.record({
                kind: fc.constant('claims' as const),
                // Each picks one of the rewards claimable now (repeats included, to race the same claim).
                claims: fc.array(fc.record({ pick: fc.nat(), whole: fc.boolean() }), { minLength: 1, maxLength: 8 }),
              }),
            },
            { weight: 2, arbitrary: fc.record({ kind: fc.constant('reverse' as const), pick: fc.nat() }) },
          ),
          { minLength: 4, maxLength: 30 },
        ),
        async (ops) => {
          const suffix = uniqueSuffix();
          const now = Date.now();
          const platform = await createTestProvider(database.db, 'platform');
          // A task reward of 10 points and a chain reward of 7 or 13 (shared/testing/chains.ts).
          const chains = await Promise.all(
            [7, 13].map((value, k) =>
              createTestChain(database.db, platform.id, advertiser.id, {
                start: new Date(now - DAY_MS).toISOString(),
                end: new Date(now + DAY_MS).toISOString(),
                tasks: [{ event: `p${k}-${suffix}` }],
                reward: { type: 'points', name: `${value} points`, value },
              }),
            ),
          );
          const users = POINTS_USERS.map((user) => `${user}-${suffix}`);
          for (const user of users) await createTestUser(database.db, platform.id, user);
          const board = await createLeaderboard(deps(), {
            platformId: platform.id,
            mode: 'live',
            name: `Points ${suffix}`,
            metric: 'points',
            startUs: BigInt(now - HOUR_MS) * 1000n,
            endUs: null,
            recurrence: null,
            size: 100,
          });
          await readStandings(deps(), { platformId: platform.id, boardId: board.id, limit: 1 });

          const sent: { id: string; user: string; chain: number; at: number; reversed: boolean }[] = [];
          const granted = new Map<
            string,
            { claimId: string; user: string; chain: number; whole: boolean; value: number; claimedAt: number }
          >();
          let tick = 0;
          const evaluate = async (eventIds: string[]) => {
            const outcome = await matchBatch({ db: database.db }, { eventIds, evaluateUserIds: enqueued.splice(0) });
            await refreshStandings(deps(), { userIds: outcome.standingsQueued });
          };
          const liveEvents = (user: string, chain: number) =>
            sent.filter((e) => e.user === user && e.chain === chain && !e.reversed).map((e) => e.at);
          const live = (user: string, chain: number) => liveEvents(user, chain).length > 0;
          for (const op of ops) {
            if (op.kind === 'event') {
              const user = `${op.user}-${suffix}`;
              const [stored] = await insertOrFindEvents(database.db, [
                {
                  providerId: platform.id,
                  userId: senderUserId(user),
                  eventType: `p${op.chain}-${suffix}`,
                  occurredAt: BigInt(now - 30 * MINUTE_MS + (tick += 1) * 1000) * 1000n,
                },
              ]);
              sent.push({ id: stored!.id, user, chain: op.chain, at: tick, reversed: false });
              await evaluate([stored!.id]);
            } else if (op.kind === 'claims') {
              // Only rewards the model knows are claimable, all at once: repeats answer the first claim.
              const claimable = [...new Set(sent.filter((e) => !e.reversed).map((e) => `${e.chain}/${e.user}`))];
              const asked =
                claimable.length === 0
                  ? []
                  : op.claims.map((c) => {
                      const [chain, user] = claimable[c.pick % claimable.length]!.split('/') as [string, string];
                      return { user, chain: Number(chain), whole: c.whole };
                    });
              const answers = await Promise.all(
                asked.map((c) =>
                  claimReward(deps(), {
                    platformId: platform.id,
                    platformUserId: senderUserId(c.user),
                    ...(c.whole ? { chainId: chains[c.chain]!.id } : { taskId: chains[c.chain]!.taskIds[0]! }),
                  }),
                ),
              );
              answers.forEach((answer, i) => {
                const c = asked[i]!;
                const key = `${c.user}/${c.chain}/${c.whole}`;
                const first = granted.get(key);
                if (first) expect(answer.claimId).toBe(first.claimId);
                else
                  granted.set(key, {
                    claimId: answer.claimId,
                    user: c.user,
                    chain: c.chain,
                    whole: c.whole,
                    value: c.whole ? [7, 13][c.chain]! : 10,
                    // The completion claimed: the task's first standing event (events come in time order here).
                    claimedAt: Math.min(...liveEvents(c.user, c.chain)),
                  });
              });
            } else if (sent.length > 0) {
              // Mostly events whose rewards were claimed: those reversals are what moves a score.
              const claimed = sent.filter(
                (e) => !e.reversed && [...granted.values()].some((g) => g.user === e.user && g.chain === e.chain),
              );
              const pool = claimed.length > 0 && op.pick % 4 !== 0 ? claimed : sent;
              const event = pool[op.pick % pool.length]!;
              await reverseEvents(deps(), { providerId: platform.id, reversals: [{ eventId: event.id, reason: 'model' }] });
              event.reversed = true;
              await evaluate([]);
            }
          }

          // The model (docs/reversals.md): a task's claim is reversed once no standing event completes the task at or
          // before the completion it claimed (the walk holds that one); a chain reward's claim while the chain is not
          // completed, by a standing event or by its claimed task's hold. A credit counts while its claim is not
          // reversed (§18.3: the debit, and the credit back when the mark clears); a score is reached at the last
          // ledger entry of its claims, whose times come from the ledger as stored.
          const taskHeld = (user: string, chain: number) => granted.has(`${user}/${chain}/false`);
          const stands = (claim: { user: string; chain: number; whole: boolean; claimedAt: number }) =>
            claim.whole
              ? live(claim.user, claim.chain) || taskHeld(claim.user, claim.chain)
              : liveEvents(claim.user, claim.chain).some((at) => at <= claim.claimedAt);
          const claimIds = [...granted.values()].map((g) => g.claimId);
          const stored = await database.db
            .select({ id: rewardClaims.id, reversedUs: rewardClaims.reversedAt })
            .from(rewardClaims)
            .where(inArray(rewardClaims.id, claimIds));
          const marked = new Map(stored.map((row) => [row.id, row.reversedUs !== null]));
          const entries = await database.db
            .select({ claimId: pointEntries.claimId, amount: pointEntries.amount, atUs: pointEntries.createdAt })
            .from(pointEntries)
            .where(inArray(pointEntries.claimId, claimIds));
          const standings = new Map<string, ModelStanding>();
          for (const claim of granted.values()) {
            const standsNow = stands(claim);
            expect(marked.get(claim.claimId), `claim of ${claim.user} in chain ${claim.chain} reversed as the model says`).toBe(
              !standsNow,
            );
            const own = entries.filter((entry) => entry.claimId === claim.claimId);
            // The ledger holds what the model says the claim is worth now.
            expect(own.reduce((sum, entry) => sum + Number(entry.amount), 0)).toBe(standsNow ? claim.value : 0);
            const standing = standings.get(claim.user) ?? { platformUserId: claim.user, score: 0, reachedMs: 0 };
            standings.set(claim.user, {
              ...standing,
              score: standing.score + (standsNow ? claim.value : 0),
              reachedMs: Math.max(standing.reachedMs, ...own.map((entry) => Number(entry.atUs / 1000n))),
            });
          }
          grantedInAll += granted.size;
          reversedInAll += entries.filter((entry) => entry.amount < 0n).length;
          const ranking = modelRanking(standings.values());
          const cached = await deps().standings.read({ boardId: board.id, periodStartUs: board.startUs }, { limit: 100 });
          expect(cached && wire(cached.entries)).toEqual(ranking);
          await flushStandings();
          const rebuilt = await readStandings(deps(), { platformId: platform.id, boardId: board.id, limit: 100 });
          expect(wire(rebuilt.entries)).toEqual(ranking);
        },
      ),
      { numRuns: 12, seed: SEED },
    );
    // The runs made claims, and reversals debited some of them.
    expect(grantedInAll).toBeGreaterThan(20);
    expect(reversedInAll).toBeGreaterThan(0);
  }, 240_000);
});
