import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { insertOrFindEvents, reverseEvents as storeReversals } from '../../shared/db/event-store.js';
import {
  accountLinks,
  chainProgress,
  rewardClaims,
  taskCompletions,
  webhookEndpoints,
  webhookMessages,
} from '../../shared/db/schema/index.js';
import { type ServiceUserId, senderUserId } from '../../shared/domain/ids.js';
import { parseUtcTimestamp } from '../../shared/domain/timestamp.js';
import { WEBHOOK_EVENT_TYPES } from '../../shared/domain/webhooks.js';
import { DomainError } from '../../shared/errors.js';
import { statsColumnsAdrift } from '../../shared/testing/chain-stats-rows.js';
import { createTestChain, createTestUser } from '../../shared/testing/chains.js';
import { recordChanges } from '../../shared/testing/change-notices.js';
import { createTestProvider, type TestProvider } from '../../shared/testing/fixtures.js';
import { recordingQueues } from '../../shared/testing/recording-queues.js';
import { useTestData } from '../../shared/testing/test-data.js';
import type { CoreDeps } from '../deps.js';
import { matchBatch } from '../matching/match-batch.js';
import { claimReward } from '../rewards/claim-reward.js';
import { reverseEvents } from './reverse-events.js';

// The reversal use-case with the matcher driven by hand (the queue is the e2e
// tests' business): what a reversal enqueues is recorded and then run.

const { database, platform, advertiser } = useTestData('reversals');

const { enqueued, producer, webhooks } = recordingQueues<CoreDeps['producer'], CoreDeps['webhooks']>();
const deps = () => ({ db: database.db, producer, webhooks, changes: recordChanges().changes });

async function send(provider: TestProvider, userId: string, eventType: string, timestamp: string) {
  const [stored] = await insertOrFindEvents(database.db, [
    { providerId: provider.id, userId: senderUserId(userId), eventType, occurredAt: parseUtcTimestamp(timestamp)! },
  ]);
  return stored!.id;
}
const match = (eventIds: string[]) => matchBatch({ db: database.db }, { eventIds, evaluateUserIds: [] });
/** Runs the evaluations the reversals enqueued, as the worker would. */
async function evaluateEnqueued() {
  const users = enqueued.splice(0);
  if (users.length > 0) await matchBatch({ db: database.db }, { eventIds: [], evaluateUserIds: users });
}
const reverse = (eventId: string, provider: TestProvider = platform) =>
  reverseEvents(deps(), { providerId: provider.id, reversals: [{ eventId, reason: 'refund' }] }).then(([result]) => result!);

async function completions(userId: ServiceUserId, chainId: string) {
  const rows = await database.db
    .select({ taskId: taskCompletions.taskId, eventId: taskCompletions.eventId, held: taskCompletions.held })
    .from(taskCompletions)
    .where(and(eq(taskCompletions.userId, userId), eq(taskCompletions.chainId, chainId)));
  return new Map(rows.map((row) => [row.taskId, { eventId: row.eventId, held: row.held }]));
}
const progressOf = async (userId: ServiceUserId, chainId: string) =>
  (
    await database.db
      .select()
      .from(chainProgress)
      .where(and(eq(chainProgress.userId, userId), eq(chainProgress.chainId, chainId)))
  )[0];

const backendsWaitingOnLocks = async () => {
  const [row] = await database.db.execute<{ n: number }>(
    sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
  );
  return row!.n;
};

const chainOf = (types: string[], anyOrder = false) =>
  createTestChain(database.db, platform.id, advertiser.id, {
    start: '2026-01-01T00:00:00Z',
    end: '2027-01-01T00:00:00Z',
    anyOrder,
    tasks: types.map((event) => ({ event })),
  });

describe('reverseEvents', () => {
  it('takes back what only the reversed event completed, and is idempotent', async () => {
    const chain = await chainOf(['rv-buy', 'rv-kyc']);
    const userId = await createTestUser(database.db, platform.id, 'rv-1');
    const buy = await send(platform, 'rv-1', 'rv-buy', '2026-03-01T00:00:00Z');
    const kyc = await send(platform, 'rv-1', 'rv-kyc', '2026-03-02T00:00:00Z');
    await match([buy, kyc]);
    expect((await progressOf(userId, chain.id))?.completedTasks).toBe(2);

    const first = await reverse(buy);
    expect(first).toMatchObject({ found: true, alreadyReversed: false, reason: 'refund' });
    expect(enqueued).toEqual([userId]);
    await evaluateEnqueued();
    // Ordered chain: without the purchase, task 1 is open and the kyc is passed over.
    expect(await completions(userId, chain.id)).toEqual(new Map());
    expect(await progressOf(userId, chain.id)).toMatchObject({ completedTasks: 0, completedAt: null, generation: 1 });

    const second = await reverse(buy);
    expect(second).toMatchObject({ found: true, alreadyReversed: true });
    expect(first.found && second.found && second.reversedUs).toBe(first.found && first.reversedUs);
    expect(enqueued).toEqual([]);
  });

  it("finds neither another provider's event nor an unknown id", async () => {
    const id = await send(platform, 'rv-2', 'rv-x', '2026-03-01T00:00:00Z');
    expect(await reverse(id, advertiser)).toEqual({ eventId: id, found: false });
    expect(await reverse('00000000-0000-4000-8000-000000000000')).toEqual({
      eventId: '00000000-0000-4000-8000-000000000000',
      found: false,
    });
  });

  it('answers a reversal that waited on a concurrent one of the same event as reversed before, never as unknown', async () => {
    const id = await send(platform, 'rv-race', 'rv-x', '2026-03-01T00:00:00Z');
    let commitFirst!: () => void;
    const firstMayCommit = new Promise<void>((resolve) => (commitFirst = resolve));
    let firstReversed!: () => void;
    const firstHasReversed = new Promise<void>((resolve) => (firstReversed = resolve));
    const first = database.db.transaction(async (tx) => {
      const result = await storeReversals(tx, platform.id, [{ eventId: id, reason: 'first' }]);
      firstReversed();
      await firstMayCommit;
      return result;
    });
    await firstHasReversed;
    const second = storeReversals(database.db, platform.id, [{ eventId: id, reason: 'second' }]);
    // Commit the first only once the second waits on its row lock: the interleaving this test is about.
    await expect.poll(() => backendsWaitingOnLocks(), { timeout: 5000 }).toBe(1);
    commitFirst();
    expect(await first).toEqual([expect.objectContaining({ eventId: id, alreadyReversed: false, reason: 'first' })]);
    expect(await second).toEqual([expect.objectContaining({ eventId: id, alreadyReversed: true, reason: 'first' })]);
  });

  it('moves a completion to the next event that fits when the first one is reversed', async () => {
    const chain = await chainOf(['rv-trade']);
    const userId = await createTestUser(database.db, platform.id, 'rv-3');
    const first = await send(platform, 'rv-3', 'rv-trade', '2026-03-01T00:00:00Z');
    const second = await send(platform, 'rv-3', 'rv-trade', '2026-03-05T00:00:00Z');
    await match([first, second]);
    await reverse(first);
    await evaluateEnqueued();
    expect(await completions(userId, chain.id)).toEqual(new Map([[chain.taskIds[0], { eventId: second, held: false }]]));
  });

  it('never counts an event reversed before it was matched, nor its re-sent duplicate', async () => {
    const chain = await chainOf(['rv-early']);
    const userId = await createTestUser(database.db, platform.id, 'rv-4');
    const id = await send(platform, 'rv-4', 'rv-early', '2026-03-01T00:00:00Z');
    await reverse(id);
    await evaluateEnqueued();
    expect((await match([id])).matched).toEqual([]);
    const [again] = await insertOrFindEvents(database.db, [
      {
        providerId: platform.id,
        userId: senderUserId('rv-4'),
        eventType: 'rv-early',
        occurredAt: parseUtcTimestamp('2026-03-01T00:00:00Z')!,
      },
    ]);
    expect(again).toMatchObject({ id, inserted: false, processed: true });
    await match([id]);
    expect(await completions(userId, chain.id)).toEqual(new Map());
  });

  it('keeps a claimed task completed (held) and marks its claim reversed; the chain stays completed', async () => {
    const chain = await chainOf(['rv-claim']);
    // Every type: the claim, then its reversal, reach the platform's outbox.
    const [endpoint] = await database.db
      .insert(webhookEndpoints)
      .values({
        providerId: platform.id,
        url: 'https://example.com/hook',
        eventTypes: [...WEBHOOK_EVENT_TYPES],
        secret: 'whsec_dGVzdA==',
      })
      .returning({ id: webhookEndpoints.id });
    const userId = await createTestUser(database.db, platform.id, 'rv-5');
    const id = await send(platform, 'rv-5', 'rv-claim', '2026-03-01T00:00:00Z');
    await match([id]);
    const claim = await claimReward(deps(), {
      platformId: platform.id,
      platformUserId: senderUserId('rv-5'),
      taskId: chain.taskIds[0]!,
    });
    expect(claim.reversedUs).toBeNull();
    await reverse(id);
    await evaluateEnqueued();
    expect(await completions(userId, chain.id)).toEqual(new Map([[chain.taskIds[0], { eventId: id, held: true }]]));
    expect((await progressOf(userId, chain.id))?.completedTasks).toBe(1);
    const [stored] = await database.db.select().from(rewardClaims).where(eq(rewardClaims.id, claim.claimId));
    expect(stored?.reversedAt).not.toBeNull();
    const again = await claimReward(deps(), {
      platformId: platform.id,
      platformUserId: senderUserId('rv-5'),
      taskId: chain.taskIds[0]!,
    });
    expect(again).toMatchObject({ alreadyClaimed: true, claimId: claim.claimId, reversedUs: stored!.reversedAt });
    const messages = await database.db.select().from(webhookMessages).where(eq(webhookMessages.endpointId, endpoint!.id));
    expect(messages.map((m) => m.type).sort()).toEqual([
      'chain.completed',
      'reward.claimed',
      'reward.reversed',
      'task.completed',
    ]);
    expect(messages.find((m) => m.type === 'reward.reversed')?.data).toMatchObject({
      claim_id: claim.claimId,
      kind: 'task',
      platform_user_id: 'rv-5',
      reversed_at: expect.any(String),
    });
    await database.db.delete(webhookMessages).where(eq(webhookMessages.endpointId, endpoint!.id));
    await database.db
      .update(webhookEndpoints)
      .set({ deletedAt: BigInt(Date.now()) * 1000n })
      .where(eq(webhookEndpoints.id, endpoint!.id));
  });

  it("marks a chain reward's claim reversed while the chain is undone, and clears the mark once it completes again", async () => {
    const chain = await createTestChain(database.db, platform.id, advertiser.id, {
      start: '2026-01-01T00:00:00Z',
      end: '2027-01-01T00:00:00Z',
      tasks: [{ event: 'rv-chain' }],
      reward: { type: 'mystery_box', name: 'Box', value: 5, image_urls: null },
    });
    const userId = await createTestUser(database.db, platform.id, 'rv-6');
    const first = await send(platform, 'rv-6', 'rv-chain', '2026-03-01T00:00:00Z');
    await match([first]);
    const claim = await claimReward(deps(), { platformId: platform.id, platformUserId: senderUserId('rv-6'), chainId: chain.id });
    const reversedAt = async () =>
      (await database.db.select().from(rewardClaims).where(eq(rewardClaims.id, claim.claimId)))[0]?.reversedAt ?? null;

    await reverse(first);
    await evaluateEnqueued();
    expect(await progressOf(userId, chain.id)).toMatchObject({ completedTasks: 0, completedAt: null, generation: 1 });
    expect(await reversedAt()).not.toBeNull();

    await match([await send(platform, 'rv-6', 'rv-chain', '2026-03-02T00:00:00Z')]);
    expect((await progressOf(userId, chain.id))?.completedTasks).toBe(1);
    expect(await reversedAt()).toBeNull();
  });

  it("takes back what an advertiser's event earned for the user of each platform linked to its id, at the advertiser's own call", async () => {
    const otherPlatform = await createTestProvider(database.db, 'platform', { name: 'second platform' });
    const chains = await Promise.all(
      [platform, otherPlatform].map((owner) =>
        createTestChain(database.db, owner.id, advertiser.id, {
          start: '2026-01-01T00:00:00Z',
          end: '2027-01-01T00:00:00Z',
          tasks: [{ event: 'rv-adv' }],
        }),
      ),
    );
    const users = [
      await createTestUser(database.db, platform.id, 'rv-7'),
      await createTestUser(database.db, otherPlatform.id, 'rv-7'),
    ];
    for (const [i, owner] of [platform, otherPlatform].entries()) {
      await database.db.insert(accountLinks).values({
        userId: users[i]!,
        platformId: owner.id,
        advertiserId: advertiser.id,
        advertiserUserId: senderUserId('rv-adv-user'),
      });
    }
    const id = await send(advertiser, 'rv-adv-user', 'rv-adv', '2026-03-01T00:00:00Z');
    await match([id]);
    for (const [i, userId] of users.entries()) expect((await completions(userId, chains[i]!.id)).size).toBe(1);
    // A platform cannot reverse the advertiser's event: only its sender can.
    expect(await reverse(id, platform)).toEqual({ eventId: id, found: false });
    expect(await reverse(id, advertiser)).toMatchObject({ found: true, alreadyReversed: false });
    expect([...enqueued].sort()).toEqual([...users].sort());
    await evaluateEnqueued();
    for (const [i, userId] of users.entries()) expect(await completions(userId, chains[i]!.id)).toEqual(new Map());
  });

  it('races its own matching: the event ends up counting for nothing, in every round', async () => {
    const chain = await chainOf(['rv-race']);
    for (let round = 0; round < 15; round++) {
      const userId = await createTestUser(database.db, platform.id, `rv-race-${round}`);
      const id = await send(platform, `rv-race-${round}`, 'rv-race', '2026-03-01T00:00:00Z');
      await Promise.all([match([id]), reverse(id)]);
      await evaluateEnqueued();
      expect(await completions(userId, chain.id), `round ${round}`).toEqual(new Map());
    }
  });

  it('races a claim: either the claim wins and is marked reversed, or the task is reverted and the claim answers 409', async () => {
    const chain = await chainOf(['rv-claim-race']);
    const seen = new Set<string>();
    for (let round = 0; round < 20; round++) {
      const platformUserId = `rv-claim-race-${round}`;
      const userId = await createTestUser(database.db, platform.id, platformUserId);
      const id = await send(platform, platformUserId, 'rv-claim-race', '2026-03-01T00:00:00Z');
      await match([id]);
      const claiming = claimReward(deps(), {
        platformId: platform.id,
        platformUserId: senderUserId(platformUserId),
        taskId: chain.taskIds[0]!,
      }).then(
        (claim) => ({ claim }),
        (error: unknown) => ({ error }),
      );
      const reverting = reverse(id).then(evaluateEnqueued);
      const [claimed] = await Promise.all([claiming, reverting]);
      await evaluateEnqueued();
      const stored = await completions(userId, chain.id);
      const claims = await database.db.select().from(rewardClaims).where(eq(rewardClaims.userId, userId));
      if ('claim' in claimed) {
        seen.add('claim won');
        expect(stored, `round ${round}`).toEqual(new Map([[chain.taskIds[0], { eventId: id, held: true }]]));
        expect(claims.map((c) => c.reversedAt !== null)).toEqual([true]);
      } else {
        seen.add('reversal won');
        expect(claimed.error instanceof DomainError && claimed.error.code).toBe('reward_not_claimable');
        expect(stored, `round ${round}`).toEqual(new Map());
        expect(claims).toEqual([]);
      }
    }
    console.info(`claim race outcomes seen: ${[...seen].join(', ')}`);
  });
});

describe('the chain stats columns (0014)', () => {
  it('hold what they derive from in every row the batches above wrote, however their completions moved', async () => {
    expect(await statsColumnsAdrift(database.db)).toEqual([]);
  });
});
