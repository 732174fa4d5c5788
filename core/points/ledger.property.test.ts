import { and, asc, eq, inArray } from 'drizzle-orm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { insertOrFindEvents } from '../../shared/db/event-store.js';
import {
  autoClaims,
  chainProgress,
  pointBalances,
  pointEntries,
  pointSpends,
  questChains,
  rewardClaims,
  taskCompletions,
} from '../../shared/db/schema/index.js';
import { type ServiceUserId, senderUserId } from '../../shared/domain/ids.js';
import { DomainError } from '../../shared/errors.js';
import { createTestChain, createTestUser, type TestChain } from '../../shared/testing/chains.js';
import { recordChanges } from '../../shared/testing/change-notices.js';
import { useTestData } from '../../shared/testing/test-data.js';
import type { CoreDeps } from '../deps.js';
import { reverseEvents } from '../events/reverse-events.js';
import { matchBatch } from '../matching/match-batch.js';
import { runAutoClaim } from '../rewards/auto-claim.js';
import { claimReward } from '../rewards/claim-reward.js';
import { spendPoints } from './spend-points.js';

// Product rules §18 held against an independent model. Random histories of
// two users, run a few operations at a time concurrently: events that complete
// tasks of a chain claimed by hand and of an auto-claim chain with a budget,
// claims, spends with repeated idempotency keys and amounts, reversals of
// events (which mark claims reversed, and clear the marks when a later event
// completes the task again), and the worker's auto-claims. The model knows
// nothing of the ledger: it is built from the claims (their reward values and
// reversal marks), the spends stored and the answers given. Then the ledger
// must agree with it: balance = sum of entries = earned - spent - reversed;
// each entry's balance_after is the running sum in seq order 1..n; no spend
// was ever granted past the balance before it; every answer of a key is its
// first spend; every refusal told the truth; every reward an auto-claim chain
// earned was claimed once or refused by its budget.

const { database, platform, advertiser } = useTestData('points_ledger');

const producer = { enqueue: async () => true } as unknown as CoreDeps['producer'];
const webhooks = { deliver: async () => {} } as unknown as CoreDeps['webhooks'];
const deps = () => ({ db: database.db, producer, webhooks, changes: recordChanges().changes });

const USERS = 2;
const KEYS = ['k0', 'k1', 'k2'];
/** The auto-claim chain's budget: its task rewards (10, 20) and chain reward (50) of two users cannot all fit. */
const AUTO_BUDGET = 90;

type Op =
  /** `minute`: the event's time in minutes after the chain's start; an earlier one than a held completion clears its claim's mark. */
  | { op: 'event'; user: number; chain: 'manual' | 'auto'; task: number; minute: number }
  | { op: 'claim'; user: number; task: number | 'chain' | 'all' }
  | { op: 'spend'; user: number; amount: number; key: string }
  /** The `nth` spend the user asked for, asked again (same key, same amount). */
  | { op: 'repeat-spend'; user: number; nth: number }
  | { op: 'reverse'; user: number; nth: number }
  | { op: 'auto-claims' };

const user = fc.integer({ min: 0, max: USERS - 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('event' as const),
      user,
      chain: fc.constantFrom('manual' as const, 'auto' as const),
      task: fc.integer({ min: 0, max: 2 }),
      minute: fc.nat({ max: 120 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('claim' as const),
      user,
      task: fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constant('chain' as const), fc.constant('all' as const)),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('spend' as const),
      user,
      amount: fc.constantFrom(5, 10, 25, 40),
      key: fc.constantFrom(...KEYS),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('reverse' as const), user, nth: fc.nat({ max: 5 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('repeat-spend' as const), user, nth: fc.nat({ max: 5 }) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'auto-claims' as const }) },
);
/** Rounds of 1 to 4 operations, each round's run concurrently. */
const roundsArb = fc.array(fc.array(opArb, { minLength: 1, maxLength: 4 }), { minLength: 3, maxLength: 8 });
/** Points to start from: events of the manual chain's tasks, then every reward claimed, before the concurrent rounds. */
const preludeArb = fc.array(fc.record({ user, task: fc.integer({ min: 0, max: 2 }), minute: fc.nat({ max: 120 }) }), {
  maxLength: 6,
});
const historyArb = fc.record({ prelude: preludeArb, rounds: roundsArb });

type SpendAnswer =
  | { key: string; amount: number; status: 'spent'; spendId: string; balance: bigint; alreadySpent: boolean }
  | { key: string; amount: number; status: 'refused'; code: string; balance?: number };

interface World {
  tag: string;
  userIds: ServiceUserId[];
  names: string[];
  manual: TestChain;
  auto: TestChain;
  /** Each user's events, in the order sent. */
  sent: string[][];
  spends: SpendAnswer[][];
}

let runs = 0;

async function newWorld(): Promise<World> {
  const tag = `r${(runs += 1)}`;
  const names = Array.from({ length: USERS }, (_, i) => `${tag}-u${i}`);
  const userIds = await Promise.all(names.map((name) => createTestUser(database.db, platform.id, name)));
  const window = { start: '2026-01-01T00:00:00Z', end: '2099-01-01T00:00:00Z', anyOrder: true };
  // Task rewards of 10, 20 and 30 points (shared/testing/chains.ts), and a chain reward.
  const manual = await createTestChain(database.db, platform.id, advertiser.id, {
    ...window,
    tasks: [0, 1, 2].map((i) => ({ event: `${tag}-m${i}` })),
    reward: { type: 'points', name: '100 points', value: 100 },
  });
  const auto = await createTestChain(database.db, platform.id, advertiser.id, {
    ...window,
    tasks: [0, 1].map((i) => ({ event: `${tag}-a${i}` })),
    reward: { type: 'points', name: '50 points', value: 50 },
    autoClaim: true,
    budget: AUTO_BUDGET,
  });
  return { tag, userIds, names, manual, auto, sent: names.map(() => []), spends: names.map(() => []) };
}

async function runAutoClaims() {
  const waiting = await database.db.select({ id: autoClaims.id }).from(autoClaims).orderBy(asc(autoClaims.dueAt));
  await Promise.all(waiting.map(({ id }) => runAutoClaim(deps(), { autoClaimId: id })));
}

async function run(world: World, op: Op): Promise<void> {
  switch (op.op) {
    case 'event': {
      const type = op.chain === 'manual' ? `${world.tag}-m${op.task}` : `${world.tag}-a${op.task % 2}`;
      const [stored] = await insertOrFindEvents(database.db, [
        {
          providerId: platform.id,
          userId: senderUserId(world.names[op.user]!),
          eventType: type,
          occurredAt: 1_767_225_600_000_000n + BigInt(op.minute) * 60_000_000n,
        },
      ]);
      world.sent[op.user]!.push(stored!.id);
      await matchBatch({ db: database.db }, { eventIds: [stored!.id], evaluateUserIds: [] });
      return;
    }
    case 'claim': {
      const targets =
        op.task === 'all'
          ? [...world.manual.taskIds.map((taskId) => ({ taskId })), { chainId: world.manual.id }]
          : [op.task === 'chain' ? { chainId: world.manual.id } : { taskId: world.manual.taskIds[op.task]! }];
      const platformUserId = senderUserId(world.names[op.user]!);
      for (const target of targets) {
        await claimReward(deps(), { platformId: platform.id, platformUserId, ...target }).catch((error: unknown) => {
          if (!(error instanceof DomainError)) throw error;
        });
      }
      return;
    }
    case 'spend': {
      const base = { key: op.key, amount: op.amount };
      try {
        const spent = await spendPoints(deps(), {
          platformId: platform.id,
          platformUserId: senderUserId(world.names[op.user]!),
          amount: BigInt(op.amount),
          idempotencyKey: op.key,
          reason: null,
        });
        world.spends[op.user]!.push({
          ...base,
          status: 'spent',
          spendId: spent.spendId,
          balance: spent.balanceAfter,
          alreadySpent: spent.alreadySpent,
        });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        world.spends[op.user]!.push({ ...base, status: 'refused', code: error.code, ...error.details });
      }
      return;
    }
    case 'repeat-spend': {
      const asked = world.spends[op.user]!;
      if (asked.length === 0) return;
      const { key, amount } = asked[op.nth % asked.length]!;
      return run(world, { op: 'spend', user: op.user, key, amount });
    }
    case 'reverse': {
      const events = world.sent[op.user]!;
      if (events.length === 0) return;
      await reverseEvents(deps(), {
        providerId: platform.id,
        reversals: [{ eventId: events[op.nth % events.length]!, reason: 'refund' }],
      });
      await matchBatch({ db: database.db }, { eventIds: [], evaluateUserIds: [world.userIds[op.user]!] });
      return;
    }
    case 'auto-claims':
      await runAutoClaims();
  }
}

const pointsOf = (reward: Record<string, unknown>) => (reward.type === 'points' ? BigInt(reward.value as number) : 0n);

async function checkAgainstModel(world: World) {
  for (const [index, userId] of world.userIds.entries()) {
    const entries = await database.db
      .select()
      .from(pointEntries)
      .where(eq(pointEntries.userId, userId))
      .orderBy(asc(pointEntries.seq));
    const [stored] = await database.db.select().from(pointBalances).where(eq(pointBalances.userId, userId));
    const figures = stored ?? { balance: 0n, earned: 0n, spent: 0n, reversed: 0n, entries: 0n };

    // The ledger adds up: entries numbered 1..n, each balance_after the running sum, the last one the balance.
    let running = 0n;
    const sums = { claim: 0n, spend: 0n, reversal: 0n };
    for (const [i, entry] of entries.entries()) {
      expect(entry.seq).toBe(BigInt(i + 1));
      // A spend is granted only on a balance that covers it.
      if (entry.kind === 'spend') expect(running, 'a spend past the balance').toBeGreaterThanOrEqual(-entry.amount);
      running += entry.amount;
      expect(entry.balanceAfter).toBe(running);
      sums[entry.kind] += entry.amount;
    }
    expect(figures.balance).toBe(running);
    expect(figures.entries).toBe(BigInt(entries.length));
    expect([figures.earned, figures.spent, figures.reversed]).toEqual([sums.claim, -sums.spend, -sums.reversal]);

    // The model: what the claims and spends stored say, never the ledger.
    const claims = await database.db.select().from(rewardClaims).where(eq(rewardClaims.userId, userId));
    const spends = await database.db.select().from(pointSpends).where(eq(pointSpends.userId, userId));
    const earned = claims.reduce((total, claim) => total + pointsOf(claim.reward), 0n);
    const reversed = claims.reduce((total, claim) => total + (claim.reversedAt === null ? 0n : pointsOf(claim.reward)), 0n);
    const spent = spends.reduce((total, spend) => total + spend.amount, 0n);
    expect({ earned: figures.earned, spent: figures.spent, reversed: figures.reversed }).toEqual({ earned, spent, reversed });
    expect(figures.balance).toBe(earned - spent - reversed);
    // Each claim's entries: its credit, then reversals alternating debit and credit back, ending where its mark stands.
    for (const claim of claims) {
      const own = entries.filter((entry) => entry.claimId === claim.id).map((entry) => entry.amount);
      const value = pointsOf(claim.reward);
      if (value === 0n) expect(own).toEqual([]);
      else {
        expect(own.reduce((a, b) => a + b, 0n)).toBe(claim.reversedAt === null ? value : 0n);
        expect(own).toEqual(own.map((_, i) => (i % 2 === 0 ? value : -value)));
      }
    }

    // The answers: every answer of a key is its one spend; refusals told the truth.
    const byKey = new Map(spends.map((spend) => [spend.idempotencyKey, spend]));
    const granted = new Map<string, number>();
    for (const answer of world.spends[index]!) {
      const spend = byKey.get(answer.key);
      if (answer.status === 'spent') {
        expect(spend).toMatchObject({ id: answer.spendId, amount: BigInt(answer.amount), balanceAfter: answer.balance });
        if (!answer.alreadySpent) granted.set(answer.key, (granted.get(answer.key) ?? 0) + 1);
      } else if (answer.code === 'idempotency_key_reused') {
        expect(spend).toBeDefined();
        expect(spend!.amount).not.toBe(BigInt(answer.amount));
      } else {
        expect(answer.code).toBe('insufficient_points');
        expect(answer.balance!).toBeLessThan(answer.amount);
      }
    }
    for (const count of granted.values()) expect(count).toBe(1);
    expect(granted.size).toBe(spends.length);
  }

  // Auto-claim: nothing left waiting, and every reward the auto chain's walks hold now was claimed, or its budget refused it.
  await runAutoClaims();
  expect(await database.db.select().from(autoClaims)).toEqual([]);
  const [chain] = await database.db.select().from(questChains).where(eq(questChains.id, world.auto.id));
  const autoClaimsMade = await database.db.select().from(rewardClaims).where(eq(rewardClaims.chainId, world.auto.id));
  const claimedValue = autoClaimsMade.reduce((total, claim) => total + Number(pointsOf(claim.reward)), 0);
  expect(chain!.budgetSpent).toBe(claimedValue);
  expect(claimedValue).toBeLessThanOrEqual(AUTO_BUDGET);
  const claimed = new Set(autoClaimsMade.map((claim) => `${claim.userId}/${claim.taskId}`));
  const completions = await database.db
    .select()
    .from(taskCompletions)
    .where(and(eq(taskCompletions.chainId, world.auto.id), inArray(taskCompletions.userId, world.userIds)));
  for (const completion of completions) {
    const value = (world.auto.taskIds.indexOf(completion.taskId) + 1) * 10;
    if (!claimed.has(`${completion.userId}/${completion.taskId}`))
      expect(claimedValue + value, 'an earned reward neither claimed nor over the budget').toBeGreaterThan(AUTO_BUDGET);
  }
  const completedChains = await database.db
    .select()
    .from(chainProgress)
    .where(and(eq(chainProgress.chainId, world.auto.id), inArray(chainProgress.userId, world.userIds)));
  for (const progress of completedChains) {
    if (progress.completedAt === null || claimed.has(`${progress.userId}/null`)) continue;
    expect(claimedValue + 50, 'an earned chain reward neither claimed nor over the budget').toBeGreaterThan(AUTO_BUDGET);
  }
}

describe('the points ledger against a model (§18)', () => {
  it('adds up, never overdraws and answers truthfully under concurrent claims, auto-claims, spends and reversals', async () => {
    await fc.assert(
      fc.asyncProperty(historyArb, async ({ prelude, rounds }) => {
        const world = await newWorld();
        for (const event of prelude) await run(world, { op: 'event', chain: 'manual', ...event });
        for (let user = 0; user < USERS; user += 1) await run(world, { op: 'claim', user, task: 'all' });
        for (const round of rounds) await Promise.all(round.map((op) => run(world, op)));
        await checkAgainstModel(world);
      }),
      { numRuns: 30 },
    );
  }, 300_000);
});
