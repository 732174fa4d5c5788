import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { insertOrFindEvents } from '../../shared/db/event-store.js';
import { taskCompletions, users } from '../../shared/db/schema/index.js';
import { senderUserId } from '../../shared/domain/ids.js';
import { parseUtcTimestamp } from '../../shared/domain/timestamp.js';
import { countStatsOverRows, statsColumnsAdrift, statsDifferences } from '../../shared/testing/chain-stats-rows.js';
import { createTestChain, createTestUser } from '../../shared/testing/chains.js';
import { recordChanges } from '../../shared/testing/change-notices.js';
import { recordingQueues } from '../../shared/testing/recording-queues.js';
import { useTestData } from '../../shared/testing/test-data.js';
import type { CoreDeps } from '../deps.js';
import { reverseEvents } from '../events/reverse-events.js';
import { matchBatch } from '../matching/match-batch.js';
import { claimReward } from '../rewards/claim-reward.js';
import { type ChainStats, readChainStats } from './read-chain-stats.js';

// The chain stats of a chain the matcher wrote, late events, reversals and
// claims included, against the same figures counted the slow way over the rows
// (shared/testing/chain-stats-rows.ts): the values written for the read
// (0014) follow every move of a completion.

const { database, platform, advertiser } = useTestData('chain_stats_read');

const { enqueued, producer, webhooks } = recordingQueues<CoreDeps['producer'], CoreDeps['webhooks']>();

async function send(userId: string, eventType: string, timestamp: string) {
  const [stored] = await insertOrFindEvents(database.db, [
    { providerId: platform.id, userId: senderUserId(userId), eventType, occurredAt: parseUtcTimestamp(timestamp)! },
  ]);
  await matchBatch({ db: database.db }, { eventIds: [stored!.id], evaluateUserIds: [] });
  return stored!.id;
}
async function reverse(eventId: string) {
  await reverseEvents({ db: database.db, producer }, { providerId: platform.id, reversals: [{ eventId, reason: 'refund' }] });
  await matchBatch({ db: database.db }, { eventIds: [], evaluateUserIds: enqueued.splice(0) });
}
async function registered(platformUserId: string, at: string) {
  const id = await createTestUser(database.db, platform.id, platformUserId);
  await database.db
    .update(users)
    .set({ createdAt: parseUtcTimestamp(at)! })
    .where(eq(users.id, id));
  return id;
}
const claim = (platformUserId: string, target: { taskId: string } | { chainId: string }) =>
  claimReward(
    { db: database.db, webhooks, changes: recordChanges().changes },
    { platformId: platform.id, platformUserId: senderUserId(platformUserId), ...target },
  );

/** The use-case's answer in the fields the count over the rows has. */
const answered = (stats: ChainStats) => ({
  users: stats.users,
  tasks: stats.tasks.map((task) => ({
    taskId: task.taskId,
    completedUsers: task.completedUsers,
    medianSeconds: task.medianSecondsToComplete,
  })),
  rewards: stats.rewards
    .filter((reward) => reward.claims > 0)
    .map((reward) => ({ taskId: reward.taskId, claims: reward.claims, value: reward.valueClaimed })),
  reversals: stats.reversals,
  daily: stats.daily,
});

describe('readChainStats on what the matcher and the claims wrote', () => {
  it('equals the figures counted over the rows, across late events, reversals, held claims and a change of clock', async () => {
    // Paris moves its clocks on 2026-03-29: the days around it test the day ranges of the read.
    const chain = await createTestChain(database.db, platform.id, advertiser.id, {
      start: '2026-03-01T00:00:00Z',
      end: '2026-06-01T00:00:00Z',
      timezone: 'Europe/Paris',
      tasks: [{ event: 'st-a' }, { event: 'st-b' }, { event: 'st-c' }],
      reward: { type: 'points', name: 'Chain points', value: 50 },
    });
    const [taskA, taskB] = chain.taskIds as [string, string, string];

    // Registered before the start: joins at the start. Completes the chain over the change of clock (00:30 local each day).
    await registered('early', '2026-02-15T00:00:00Z');
    await send('early', 'st-a', '2026-03-28T23:30:00Z');
    await send('early', 'st-b', '2026-03-29T22:30:00Z');
    await send('early', 'st-c', '2026-03-30T10:00:00Z');
    await claim('early', { taskId: taskA });
    await claim('early', { chainId: chain.id });

    // A late event moves a completion (and the walk's start) earlier.
    const late = await registered('late', '2026-03-10T12:00:00Z');
    await send('late', 'st-a', '2026-03-20T08:00:00Z');
    await send('late', 'st-b', '2026-03-29T00:30:00Z');
    await send('late', 'st-a', '2026-03-15T08:00:00Z');
    const [moved] = await database.db
      .select({ sinceJoinedUs: taskCompletions.sinceJoinedUs })
      .from(taskCompletions)
      .where(sql`${taskCompletions.userId} = ${late} and ${taskCompletions.taskId} = ${taskA}`);
    expect(moved!.sinceJoinedUs).toBe(BigInt(Date.parse('2026-03-15T08:00:00Z') - Date.parse('2026-03-10T12:00:00Z')) * 1000n);

    // Reversals: one takes task 2 away; the other leaves task 1 held by its claim (reversed, still counted).
    await registered('reversed', '2026-03-05T00:00:00Z');
    const first = await send('reversed', 'st-a', '2026-03-06T00:00:00Z');
    const second = await send('reversed', 'st-b', '2026-03-07T00:00:00Z');
    await reverse(second);
    await claim('reversed', { taskId: taskA });
    await reverse(first);

    // Counted in the chain (an event of its walked) without completing anything.
    await registered('waiting', '2026-03-02T00:00:00Z');
    await send('waiting', 'st-b', '2026-03-03T00:00:00Z');

    const stats = await readChainStats({ db: database.db, readDb: database.db }, { chainId: chain.id });
    expect(statsDifferences(answered(stats), await countStatsOverRows(database.db, chain.id))).toEqual([]);
    expect(stats.users).toEqual({ admitted: 4, started: 3, completed: 1 });
    expect(stats.reversals).toMatchObject({ claims: 1, users: 1 });
    // Points paid out (§18): early's task 1 (10) and chain reward (50); reversed's task 1 (10) was credited, then debited.
    expect(stats.pointsPaidOut).toBe(60);
    expect(stats.daily.find((day) => day.day === '2026-03-29')).toMatchObject({ starts: 1, completions: 0 });
    expect(stats.tasks.find((task) => task.taskId === taskB)?.completedUsers).toBe(2);
    expect(await statsColumnsAdrift(database.db)).toEqual([]);
  });

  it('answers zeros and no median for a chain nobody took part in', async () => {
    const chain = await createTestChain(database.db, platform.id, advertiser.id, { tasks: [{ event: 'st-none' }] });
    const stats = await readChainStats({ db: database.db, readDb: database.db }, { chainId: chain.id });
    expect(stats.users).toEqual({ admitted: 0, started: 0, completed: 0 });
    expect(stats.tasks.map((task) => [task.completedUsers, task.medianSecondsToComplete])).toEqual([[0, null]]);
    expect(stats.daily.every((day) => day.starts + day.completions + day.claims === 0)).toBe(true);
  });
});
