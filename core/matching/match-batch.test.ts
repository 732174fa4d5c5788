import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { insertOrFindEvents } from '../../shared/db/event-store.js';
import { accountLinks, chainProgress, taskCompletions, users, webhookMessages } from '../../shared/db/schema/index.js';
import { loadProgressChangeSince } from '../../shared/db/user-store.js';
import { deleteEndpoint, insertEndpoint } from '../../shared/db/webhook-endpoint-store.js';
import { type ServiceUserId, senderUserId, serviceUserId } from '../../shared/domain/ids.js';
import { formatIsoMicros, parseUtcTimestamp } from '../../shared/domain/timestamp.js';
import { statsColumnsAdrift } from '../../shared/testing/chain-stats-rows.js';
import { createTestChain, createTestUser } from '../../shared/testing/chains.js';
import type { TestProvider } from '../../shared/testing/fixtures.js';
import { useTestData } from '../../shared/testing/test-data.js';
import { generateWebhookSecret } from '../webhooks/signing.js';
import { matchBatch } from './match-batch.js';

// The matching use-case called directly (the queue is exercised by the end-to-end tests):
// enqueueing is dropped, not sent.
/** One batch of these events, as a worker's batcher would hand them over. */
const matchEvents = (db: typeof database.db, eventIds: string[]) => matchBatch({ db }, { eventIds, evaluateUserIds: [] });
const processEvent = async (db: typeof database.db, eventId: string) => {
  const outcome = await matchEvents(db, [eventId]);
  return { kind: outcome.matched.length > 0 ? 'processed' : 'already-processed' };
};
const evaluateUser = async (db: typeof database.db, userId: ServiceUserId) => {
  const outcome = await matchBatch({ db }, { eventIds: [], evaluateUserIds: [userId] });
  return outcome.changes.find((change) => change.userId === userId) ?? null;
};

const { database, platform, advertiser } = useTestData('matching');

/** A chain of one task per event type, written through the data layer. */
async function createChain(types: string[], options: { anyOrder?: boolean } = {}) {
  const chain = await createTestChain(database.db, platform.id, advertiser.id, {
    name: 'chain',
    start: '2026-01-01T00:00:00Z',
    end: '2027-01-01T00:00:00Z',
    anyOrder: options.anyOrder ?? false,
    tasks: types.map((event) => ({ event })),
  });
  return { chainId: chain.id, taskIds: chain.taskIds };
}

const registerUser = (platformUserId: string) => createTestUser(database.db, platform.id, platformUserId);

async function send(provider: TestProvider, userId: string, eventType: string, timestamp: string) {
  const [result] = await insertOrFindEvents(database.db, [
    { providerId: provider.id, userId: senderUserId(userId), eventType, occurredAt: parseUtcTimestamp(timestamp)! },
  ]);
  return result!.id;
}

async function completions(userId: string, chainId: string) {
  const rows = await database.db
    .select({ task_id: taskCompletions.taskId, event_id: taskCompletions.eventId })
    .from(taskCompletions)
    .where(and(eq(taskCompletions.userId, serviceUserId(userId)), eq(taskCompletions.chainId, chainId)));
  return new Map(rows.map((row) => [row.task_id, row.event_id]));
}

describe('matchBatch, one event at a time', () => {
  it('completes an ordered chain from events processed in reverse order, and marks each processed once', async () => {
    const { chainId, taskIds } = await createChain(['m-a', 'm-b', 'm-c']);
    const userId = await registerUser('reverse');
    const ids = [
      await send(platform, 'reverse', 'm-c', '2026-03-03T00:00:00Z'),
      await send(platform, 'reverse', 'm-b', '2026-03-02T00:00:00Z'),
      await send(platform, 'reverse', 'm-a', '2026-03-01T00:00:00Z'),
    ];
    for (const id of ids) expect((await processEvent(database.db, id)).kind).toBe('processed');
    expect((await processEvent(database.db, ids[0]!)).kind).toBe('already-processed');
    const stored = await completions(userId, chainId);
    expect([...taskIds].map((taskId) => stored.get(taskId))).toEqual([ids[2], ids[1], ids[0]]);
    const [summary] = await database.db
      .select({ completed_tasks: chainProgress.completedTasks, completedAt: chainProgress.completedAt })
      .from(chainProgress)
      .where(and(eq(chainProgress.userId, serviceUserId(userId)), eq(chainProgress.chainId, chainId)));
    const progress = summary && {
      ...summary,
      completed_at: summary.completedAt === null ? null : formatIsoMicros(summary.completedAt),
    };
    expect(progress).toMatchObject({ completed_tasks: 3 });
    expect(progress!.completed_at).toContain('2026-03-03');
  });

  it('moves a completion to an earlier event that arrives late, never removing it', async () => {
    const { chainId, taskIds } = await createChain(['late-a', 'late-b']);
    const userId = await registerUser('late');
    const later = await send(platform, 'late', 'late-a', '2026-05-10T00:00:00Z');
    await processEvent(database.db, later);
    expect((await completions(userId, chainId)).get(taskIds[0]!)).toBe(later);
    const earlier = await send(platform, 'late', 'late-a', '2026-05-01T00:00:00Z');
    await processEvent(database.db, earlier);
    const stored = await completions(userId, chainId);
    expect(stored.get(taskIds[0]!)).toBe(earlier);
    expect(stored.size).toBe(1); // the later late-a event matches nothing: task 2 wants late-b
  });

  it('gives the same result when one user’s events are processed concurrently', async () => {
    const { chainId, taskIds } = await createChain(['c-a', 'c-b', 'c-a', 'c-b']);
    const userId = await registerUser('concurrent');
    const ids = await Promise.all(
      ['c-a', 'c-b', 'c-a', 'c-b'].map((type, index) => send(platform, 'concurrent', type, `2026-06-0${index + 1}T00:00:00Z`)),
    );
    await Promise.all(ids.map((id) => processEvent(database.db, id)));
    const stored = await completions(userId, chainId);
    expect(taskIds.map((taskId) => stored.get(taskId))).toEqual(ids);
  });

  it('counts advertiser events only once linked, through evaluateUser', async () => {
    const { chainId, taskIds } = await createChain(['adv-deposit']);
    const userId = await registerUser('linked');
    const eventId = await send(advertiser, 'adv-user-1', 'adv-deposit', '2026-04-01T00:00:00Z');
    await processEvent(database.db, eventId);
    expect((await completions(userId, chainId)).size).toBe(0);
    await database.db
      .insert(accountLinks)
      .values({ userId, platformId: platform.id, advertiserId: advertiser.id, advertiserUserId: senderUserId('adv-user-1') });
    const change = await evaluateUser(database.db, userId);
    expect(change?.chainIds).toContain(chainId);
    expect((await completions(userId, chainId)).get(taskIds[0]!)).toBe(eventId);
  });

  it('re-evaluation after registration counts events received before it', async () => {
    const { chainId } = await createChain(['pre-reg']);
    const eventId = await send(platform, 'early-bird', 'pre-reg', '2026-02-01T00:00:00Z');
    expect((await processEvent(database.db, eventId)).kind).toBe('processed');
    const userId = await registerUser('early-bird');
    await evaluateUser(database.db, userId);
    expect((await completions(userId, chainId)).size).toBe(1);
    const [flag] = await database.db
      .select({ needs_evaluation: users.needsEvaluation })
      .from(users)
      .where(eq(users.id, serviceUserId(userId)));
    expect(flag?.needs_evaluation).toBe(false);
    expect(await evaluateUser(database.db, userId)).toBeNull(); // nothing changes the second time
  });

  it('completes in-order events, then reassigns a task when an earlier event arrives late', async () => {
    const { chainId, taskIds } = await createChain(['io-a', 'io-b', 'io-a'], { anyOrder: true });
    const userId = await registerUser('in-order');
    const first = await send(platform, 'in-order', 'io-a', '2026-07-01T00:00:00Z');
    const second = await send(platform, 'in-order', 'io-a', '2026-07-02T00:00:00Z');
    await processEvent(database.db, first);
    await processEvent(database.db, second);
    let stored = await completions(userId, chainId);
    expect([stored.get(taskIds[0]!), stored.get(taskIds[1]!), stored.get(taskIds[2]!)]).toEqual([first, undefined, second]);
    // An io-b older than both: the walk now gives task 2 to it, and nothing else moves.
    const late = await send(platform, 'in-order', 'io-b', '2026-06-01T00:00:00Z');
    await processEvent(database.db, late);
    stored = await completions(userId, chainId);
    expect([stored.get(taskIds[0]!), stored.get(taskIds[1]!), stored.get(taskIds[2]!)]).toEqual([first, late, second]);
  });

  it('announces to a webhook endpoint what a late event completes (who listens is read again after the redo)', async () => {
    const { taskIds } = await createChain(['wh-a', 'wh-b']);
    await registerUser('hooked');
    const endpoint = await insertEndpoint(
      database.db,
      {
        providerId: platform.id,
        url: 'https://example.test/hook',
        eventTypes: ['task.completed'],
        secret: generateWebhookSecret(),
      },
      10,
    );
    try {
      const later = await send(platform, 'hooked', 'wh-b', '2026-08-02T00:00:00Z');
      await processEvent(database.db, later);
      // Older than the walk's mark and completing task 1: the walk is redone, and task 2 then completes at `later`.
      const early = await send(platform, 'hooked', 'wh-a', '2026-08-01T00:00:00Z');
      const outcome = await matchEvents(database.db, [early]);
      expect(outcome.recomputed).toBe(1);
      const facts = await database.db
        .select({ fact: webhookMessages.fact })
        .from(webhookMessages)
        .where(eq(webhookMessages.endpointId, endpoint!.id));
      expect(facts.map((row) => row.fact.split('/')[2]).sort()).toEqual([...taskIds].sort());
      expect(outcome.webhookMessageIds).toHaveLength(2);
    } finally {
      await deleteEndpoint(database.db, platform.id, endpoint!.id);
    }
  });
});

describe('matchBatch and the progress stamps live clients resume from', () => {
  it("stamps the summaries of exactly the chains whose completions changed with the user's new stamp", async () => {
    const x = await createChain(['stamp-x1', 'stamp-x2']);
    const y = await createChain(['stamp-y1', 'stamp-y2']);
    const userId = await registerUser('stamped');
    const first = await matchEvents(database.db, [
      await send(platform, 'stamped', 'stamp-x1', '2026-03-01T00:00:00Z'),
      await send(platform, 'stamped', 'stamp-y1', '2026-03-01T00:00:01Z'),
    ]);
    const firstStamp = first.changes.find((change) => change.userId === userId)!.changedUs;
    // A second Y1 event moves Y's walk (its mark) without changing its completions: Y's row is rewritten, unstamped.
    const second = await matchEvents(database.db, [
      await send(platform, 'stamped', 'stamp-x2', '2026-03-02T00:00:00Z'),
      await send(platform, 'stamped', 'stamp-y1', '2026-03-02T00:00:01Z'),
    ]);
    const change = second.changes.find((c) => c.userId === userId)!;
    expect(change.chainIds).toEqual([x.chainId]);
    expect(change.changedUs > firstStamp).toBe(true);
    // What a client resuming from the first stamp is told: the stamp and chains the batch reported.
    expect(await loadProgressChangeSince(database.db, userId, firstStamp)).toEqual({
      changedUs: change.changedUs,
      chainIds: [x.chainId],
    });
    const rows = await database.db
      .select({ chainId: chainProgress.chainId, updatedAt: chainProgress.updatedAt })
      .from(chainProgress)
      .where(eq(chainProgress.userId, serviceUserId(userId)));
    const updated = new Map(rows.map((row) => [row.chainId, row.updatedAt]));
    expect(updated.get(x.chainId)).toBe(change.changedUs);
    expect(updated.get(y.chainId)).toBe(firstStamp);
  });
});

describe('the chain stats columns (0014)', () => {
  it('hold what they derive from in every row the batches above wrote, however their completions moved', async () => {
    expect(await statsColumnsAdrift(database.db)).toEqual([]);
  });
});

describe('matchBatch and counted tasks', () => {
  it('writes nothing when a redo leaves the tallies as stored (tallies read back from jsonb in its key order)', async () => {
    const chain = await createTestChain(database.db, platform.id, advertiser.id, {
      name: 'counted then deposit',
      start: '2026-01-01T00:00:00Z',
      end: '2027-01-01T00:00:00Z',
      reward: false,
      tasks: [{ event: 'tally-trade', min_count: 3 }, { event: 'tally-deposit' }],
    });
    const userId = await registerUser('tally-redo');
    await processEvent(database.db, await send(platform, 'tally-redo', 'tally-trade', '2026-03-01T10:00:00Z'));
    const [stored] = await database.db.select().from(chainProgress).where(eq(chainProgress.chainId, chain.id));
    expect(stored!.tallies).not.toBeNull();
    // A re-evaluation redoes the walk from the history, its tallies counted afresh, and it comes out as stored:
    // nothing may be written or announced.
    const outcome = await matchBatch({ db: database.db }, { eventIds: [], evaluateUserIds: [userId] });
    expect(outcome.evaluated).toEqual([userId]);
    // Every chain of the platform is redone for the user; only this one holds anything of theirs.
    expect(outcome.recomputed).toBeGreaterThanOrEqual(1);
    expect(outcome.changes).toEqual([]);
    const [after] = await database.db.select().from(chainProgress).where(eq(chainProgress.chainId, chain.id));
    expect(after!.updatedAt).toBe(stored!.updatedAt);
  });
});
