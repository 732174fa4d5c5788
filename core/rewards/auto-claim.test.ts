import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { insertOrFindEvents } from '../../shared/db/event-store.js';
import { readFigures } from '../../shared/db/points-store.js';
import { autoClaims, rewardClaims, rewardDraws } from '../../shared/db/schema/index.js';
import { type ServiceUserId, senderUserId } from '../../shared/domain/ids.js';
import { parseUtcTimestamp } from '../../shared/domain/timestamp.js';
import { type ChainSpec, createTestChain, createTestUser } from '../../shared/testing/chains.js';
import { recordChanges } from '../../shared/testing/change-notices.js';
import { recordingQueues } from '../../shared/testing/recording-queues.js';
import { useTestData } from '../../shared/testing/test-data.js';
import type { CoreDeps } from '../deps.js';
import { reverseEvents } from '../events/reverse-events.js';
import { matchBatch } from '../matching/match-batch.js';
import { runAutoClaim } from './auto-claim.js';
import { claimReward } from './claim-reward.js';

// Auto-claim (§18.5) with the matcher and the worker's claim driven by hand:
// what a batch stores, what the claim of it does, and that every claim rule holds.

const { database, platform, advertiser } = useTestData('auto_claims');

const { enqueued, producer, webhooks } = recordingQueues<CoreDeps['producer'], CoreDeps['webhooks']>();
const deps = () => ({ db: database.db, producer, webhooks, changes: recordChanges().changes });

let counter = 0;
const fresh = (prefix: string) => `${prefix}-${(counter += 1)}`;

async function chainOf(spec: ChainSpec) {
  return createTestChain(database.db, platform.id, advertiser.id, {
    start: '2026-01-01T00:00:00Z',
    end: '2099-01-01T00:00:00Z',
    autoClaim: true,
    ...spec,
  });
}

/** Sends and matches an event; answers what the batch queued for auto-claim. */
async function play(platformUserId: string, eventType: string, at = '2026-03-01T00:00:00Z') {
  const [stored] = await insertOrFindEvents(database.db, [
    { providerId: platform.id, userId: senderUserId(platformUserId), eventType, occurredAt: parseUtcTimestamp(at)! },
  ]);
  const outcome = await matchBatch({ db: database.db }, { eventIds: [stored!.id], evaluateUserIds: [] });
  return { eventId: stored!.id, queued: outcome.autoClaims };
}

/** Runs every waiting auto-claim once, as the worker's jobs would, in the order they fell due. */
async function runWaiting() {
  const waiting = await database.db.select({ id: autoClaims.id }).from(autoClaims).orderBy(asc(autoClaims.dueAt));
  const outcomes = [];
  for (const { id } of waiting) outcomes.push(await runAutoClaim(deps(), { autoClaimId: id }));
  return outcomes;
}

const claimsOf = (userId: ServiceUserId) => database.db.select().from(rewardClaims).where(eq(rewardClaims.userId, userId));

describe('auto-claim', () => {
  it("claims each task's reward and the chain reward as the batch earns them, crediting their points", async () => {
    const type = fresh('ac');
    const chain = await chainOf({
      tasks: [{ event: `${type}-a` }, { event: `${type}-b` }],
      reward: { type: 'points', name: '100', value: 100 },
    });
    const user = fresh('u');
    const userId = await createTestUser(database.db, platform.id, user);
    const first = await play(user, `${type}-a`);
    expect(first.queued).toHaveLength(1);
    const second = await play(user, `${type}-b`, '2026-03-02T00:00:00Z');
    // The second task and the chain, completed by one event.
    expect(second.queued).toHaveLength(2);
    const outcomes = await runWaiting();
    expect(outcomes.map((o) => o.status).sort()).toEqual(['claimed', 'claimed', 'claimed']);
    const claims = await claimsOf(userId);
    expect(claims.map((c) => [c.taskId, c.kind]).sort()).toEqual(
      [
        [chain.taskIds[0], 'task'],
        [chain.taskIds[1], 'task'],
        [null, 'chain'],
      ].sort(),
    );
    expect(await readFigures(database.db, userId)).toEqual({ balance: 130n, earned: 130n, spent: 0n, reversed: 0n });
    expect(await database.db.select().from(autoClaims)).toEqual([]);
    // Settled: a second run of the same job finds nothing; a platform's claim finds the first.
    expect(await runAutoClaim(deps(), { autoClaimId: first.queued[0]!.id })).toEqual({ status: 'gone' });
    const again = await claimReward(deps(), {
      platformId: platform.id,
      platformUserId: senderUserId(user),
      taskId: chain.taskIds[0]!,
    });
    expect(again.alreadyClaimed).toBe(true);
  });

  it('stores nothing for a chain without auto_claim, and no chain reward for a chain without one', async () => {
    const type = fresh('plain');
    await chainOf({ tasks: [{ event: type }], autoClaim: false });
    const rewardless = fresh('norw');
    await chainOf({ tasks: [{ event: rewardless }], reward: false });
    const user = fresh('u');
    await createTestUser(database.db, platform.id, user);
    expect((await play(user, type)).queued).toEqual([]);
    // The task's reward only: the chain has no chain reward to claim.
    expect((await play(user, rewardless)).queued).toHaveLength(1);
    await runWaiting();
  });

  it('keeps the reward hold: not claimed before its end, claimed once due', async () => {
    const type = fresh('held');
    await chainOf({ tasks: [{ event: type }], reward: false, holdSeconds: 3600 });
    const user = fresh('u');
    const userId = await createTestUser(database.db, platform.id, user);
    const now = new Date().toISOString();
    const { queued } = await play(user, type, now);
    expect(queued[0]!.dueUs).toBe(parseUtcTimestamp(now)! + 3_600_000_000n);
    expect(await runAutoClaim(deps(), { autoClaimId: queued[0]!.id })).toEqual({ status: 'not_due' });
    // A job run early (its row made due by hand): the claim itself keeps the hold, and the row stays for later.
    await database.db.update(autoClaims).set({ dueAt: 0n }).where(eq(autoClaims.id, queued[0]!.id));
    expect(await runAutoClaim(deps(), { autoClaimId: queued[0]!.id })).toEqual({ status: 'not_due' });
    expect(await claimsOf(userId)).toEqual([]);
    expect(await database.db.select().from(autoClaims).where(eq(autoClaims.id, queued[0]!.id))).toHaveLength(1);
    await database.db.delete(autoClaims);
    // Completed two hours ago: due already, claimed at once.
    const late = fresh('u');
    const lateId = await createTestUser(database.db, platform.id, late);
    const past = await play(late, type, new Date(Date.now() - 7_200_000).toISOString());
    expect(await runAutoClaim(deps(), { autoClaimId: past.queued[0]!.id })).toMatchObject({ status: 'claimed' });
    expect(await claimsOf(lateId)).toHaveLength(1);
  });

  it('keeps the budget: the claim it cannot cover is refused for good, and the rest are kept', async () => {
    const type = fresh('budget');
    // Task rewards of 10 and 20 points, a budget of 25: the first user's two claims do not both fit.
    const chain = await chainOf({ tasks: [{ event: `${type}-1` }, { event: `${type}-2` }], reward: false, budget: 25 });
    const user = fresh('u');
    const userId = await createTestUser(database.db, platform.id, user);
    await play(user, `${type}-1`);
    await play(user, `${type}-2`, '2026-03-02T00:00:00Z');
    const outcomes = await runWaiting();
    expect(outcomes).toContainEqual({ status: 'refused', code: 'budget_exhausted' });
    const claims = await claimsOf(userId);
    expect(claims.map((c) => c.taskId)).toEqual([chain.taskIds[0]]);
    expect((await readFigures(database.db, userId)).balance).toBe(10n);
    expect(await database.db.select().from(autoClaims)).toEqual([]);
  });

  it('draws a mystery box as a claim does', async () => {
    const type = fresh('box');
    const chain = await chainOf({
      tasks: [{ event: type }],
      reward: {
        type: 'mystery_box',
        name: 'Box',
        value: 5,
        prizes: [{ prize_id: 'only', name: 'Only', value: 3, weight: 1, stock: 1 }],
      },
    });
    const user = fresh('u');
    const userId = await createTestUser(database.db, platform.id, user);
    await play(user, type);
    await runWaiting();
    const [box] = (await claimsOf(userId)).filter((c) => c.kind === 'chain');
    expect(box?.reward).toMatchObject({ type: 'mystery_box', prize: { prize_id: 'only' } });
    expect(await database.db.select().from(rewardDraws).where(eq(rewardDraws.claimId, box!.id))).toHaveLength(1);
    // Out of stock for the next user: refused for good, the box stays claimable by hand once restocked.
    const next = fresh('u');
    await createTestUser(database.db, platform.id, next);
    await play(next, type);
    expect(await runWaiting()).toContainEqual({ status: 'refused', code: 'out_of_stock' });
    expect(chain.rewardId).not.toBeNull();
  });

  it('keeps the reversal rules: a reversed event marks the auto-claim reversed and debits its points', async () => {
    const type = fresh('rev');
    await chainOf({ tasks: [{ event: type }], reward: false });
    const user = fresh('u');
    const userId = await createTestUser(database.db, platform.id, user);
    const { eventId } = await play(user, type);
    await runWaiting();
    expect((await readFigures(database.db, userId)).balance).toBe(10n);
    await reverseEvents(deps(), { providerId: platform.id, reversals: [{ eventId, reason: 'refund' }] });
    await matchBatch({ db: database.db }, { eventIds: [], evaluateUserIds: enqueued.splice(0) });
    const [claim] = await claimsOf(userId);
    expect(claim?.reversedAt).not.toBeNull();
    expect(await readFigures(database.db, userId)).toEqual({ balance: 0n, earned: 10n, spent: 0n, reversed: 10n });
    // A held completion is not news: nothing is queued again.
    expect(await database.db.select().from(autoClaims)).toEqual([]);
  });
});
