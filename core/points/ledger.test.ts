import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { insertOrFindEvents } from '../../shared/db/event-store.js';
import { readFigures } from '../../shared/db/points-store.js';
import { pointEntries } from '../../shared/db/schema/index.js';
import { type ServiceUserId, senderUserId } from '../../shared/domain/ids.js';
import { parseUtcTimestamp } from '../../shared/domain/timestamp.js';
import { DomainError } from '../../shared/errors.js';
import { createTestChain, createTestUser } from '../../shared/testing/chains.js';
import { recordChanges } from '../../shared/testing/change-notices.js';
import { useTestData } from '../../shared/testing/test-data.js';
import type { CoreDeps } from '../deps.js';
import { reverseEvents } from '../events/reverse-events.js';
import { matchBatch } from '../matching/match-batch.js';
import { claimReward } from '../rewards/claim-reward.js';
import { spendPoints } from './spend-points.js';

// §18.2-§18.4 worked through one user, as docs/product-rules.md's example:
// a claim credits, a reversal debits (below zero), spends wait for the
// balance to cover them, and a mark that clears credits the points back.

const { database, platform, advertiser } = useTestData('points_ledger_rules');

const producer = { enqueue: async () => true } as unknown as CoreDeps['producer'];
const webhooks = { deliver: async () => {} } as unknown as CoreDeps['webhooks'];
const deps = () => ({ db: database.db, producer, webhooks, changes: recordChanges().changes });

async function send(platformUserId: string, eventType: string, at: string) {
  const [stored] = await insertOrFindEvents(database.db, [
    { providerId: platform.id, userId: senderUserId(platformUserId), eventType, occurredAt: parseUtcTimestamp(at)! },
  ]);
  await matchBatch({ db: database.db }, { eventIds: [stored!.id], evaluateUserIds: [] });
  return stored!.id;
}

async function reverse(userId: ServiceUserId, eventId: string) {
  await reverseEvents(deps(), { providerId: platform.id, reversals: [{ eventId, reason: 'refund' }] });
  await matchBatch({ db: database.db }, { eventIds: [], evaluateUserIds: [userId] });
}

const spend = (platformUserId: string, amount: bigint, key: string) =>
  spendPoints(deps(), {
    platformId: platform.id,
    platformUserId: senderUserId(platformUserId),
    amount,
    idempotencyKey: key,
    reason: null,
  });

const entriesOf = (userId: ServiceUserId) =>
  database.db
    .select({ kind: pointEntries.kind, amount: pointEntries.amount, balanceAfter: pointEntries.balanceAfter })
    .from(pointEntries)
    .where(eq(pointEntries.userId, userId))
    .orderBy(asc(pointEntries.seq));

describe('the ledger through a claim, a reversal, spends and a mark cleared', () => {
  it('credits, debits below zero, refuses spends until covered, and credits back', async () => {
    // A chain of two tasks (10 and 20 points) and a chain reward of 100 points; only the chain reward is claimed.
    const chain = await createTestChain(database.db, platform.id, advertiser.id, {
      start: '2026-01-01T00:00:00Z',
      end: '2099-01-01T00:00:00Z',
      anyOrder: true,
      tasks: [{ event: 'lr-buy' }, { event: 'lr-kyc' }],
      reward: { type: 'points', name: '100 points', value: 100 },
    });
    const userId = await createTestUser(database.db, platform.id, 'lr-1');
    const buy = await send('lr-1', 'lr-buy', '2026-03-01T10:00:00Z');
    await send('lr-1', 'lr-kyc', '2026-03-01T11:00:00Z');
    await claimReward(deps(), { platformId: platform.id, platformUserId: senderUserId('lr-1'), chainId: chain.id });
    expect(await readFigures(database.db, userId)).toEqual({ balance: 100n, earned: 100n, spent: 0n, reversed: 0n });

    expect((await spend('lr-1', 80n, 'shop-1')).balanceAfter).toBe(20n);

    // The purchase is refunded: the chain is no longer completed, its claim is marked reversed and debited.
    await reverse(userId, buy);
    expect(await readFigures(database.db, userId)).toEqual({ balance: -80n, earned: 100n, spent: 80n, reversed: 100n });
    const refused = await spend('lr-1', 1n, 'shop-2').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'insufficient_points', details: { balance: -80 } });

    // Another purchase completes the chain again: the mark clears and the 100 points come back.
    await send('lr-1', 'lr-buy', '2026-03-02T10:00:00Z');
    expect(await readFigures(database.db, userId)).toEqual({ balance: 20n, earned: 100n, spent: 80n, reversed: 0n });
    expect((await spend('lr-1', 1n, 'shop-2')).balanceAfter).toBe(19n);

    expect(await entriesOf(userId)).toEqual([
      { kind: 'claim', amount: 100n, balanceAfter: 100n },
      { kind: 'spend', amount: -80n, balanceAfter: 20n },
      { kind: 'reversal', amount: -100n, balanceAfter: -80n },
      { kind: 'reversal', amount: 100n, balanceAfter: 20n },
      { kind: 'spend', amount: -1n, balanceAfter: 19n },
    ]);
  });
});
