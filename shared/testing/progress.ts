import { and, count, eq, max, min } from 'drizzle-orm';
import type { Database, Executor } from '../db/client.js';
import { claimedDayOf } from '../db/reward-store.js';
import {
  chainProgress,
  events,
  pendingEvents,
  questChains,
  questTasks,
  rewardClaims,
  taskCompletions,
  users,
} from '../db/schema/index.js';
import { withTransaction } from '../db/transaction.js';
import { isChainCompleted, joinedUs } from '../domain/chain-view.js';
import { type ServiceUserId, senderUserId, serviceUserId } from '../domain/ids.js';
import { dateToMicros, parseUtcTimestamp } from '../domain/timestamp.js';

/**
 * Writes what the worker would write for one completed task, in one
 * transaction as the worker does: the event that completed it, the
 * task_completions row (completed_at = the event's timestamp, measured from
 * the user's joining) and the (user, chain) chain_progress summary, whose
 * completed_at is what reward claims read. Lets read tests set up progress
 * without running the matcher.
 * The walk mark stays null: a worker meeting this row recomputes it.
 */
export async function storeCompletion(
  db: Executor,
  input: { userId: ServiceUserId; providerId: string; platformUserId: string; taskId: string; chainId: string; at: string },
) {
  const atUs = parseUtcTimestamp(input.at);
  if (atUs === null) throw new Error(`storeCompletion: ${input.at} is not a UTC timestamp`);
  await withTransaction(db, async (tx) => {
    // One writer per user at a time, so concurrent calls cannot write a stale summary.
    const [user] = await tx
      .select({ registeredUs: users.createdAt })
      .from(users)
      .where(eq(users.id, serviceUserId(input.userId)))
      .for('update');
    const [chain] = await tx
      .select({ startUs: questChains.startDate })
      .from(questChains)
      .where(eq(questChains.id, input.chainId));
    const [event] = await tx
      .insert(events)
      .values({
        providerId: input.providerId,
        userId: senderUserId(input.platformUserId),
        eventType: `test-${input.taskId}`,
        occurredAt: atUs,
      })
      .returning({ id: events.id });
    await tx.insert(taskCompletions).values({
      userId: input.userId,
      taskId: input.taskId,
      chainId: input.chainId,
      eventId: event!.id,
      completedAt: atUs,
      sinceJoinedUs: atUs - joinedUs(user!.registeredUs, chain!.startUs),
    });
    const [tasks] = await tx.select({ total: count() }).from(questTasks).where(eq(questTasks.chainId, input.chainId));
    const [summary] = await tx
      .select({ done: count(), first: min(taskCompletions.completedAt), latest: max(taskCompletions.completedAt) })
      .from(taskCompletions)
      .where(and(eq(taskCompletions.userId, serviceUserId(input.userId)), eq(taskCompletions.chainId, input.chainId)));
    const total = tasks!.total;
    const { done, first, latest } = summary!;
    const completedAt = isChainCompleted(total, done) ? latest : null;
    await tx
      .insert(chainProgress)
      .values({
        userId: input.userId,
        chainId: input.chainId,
        completedTasks: done,
        totalTasks: total,
        completedAt,
        firstCompletedAt: first,
      })
      .onConflictDoUpdate({
        target: [chainProgress.userId, chainProgress.chainId, chainProgress.runStartUs],
        set: {
          completedTasks: done,
          totalTasks: total,
          completedAt,
          firstCompletedAt: first,
          updatedAt: dateToMicros(new Date()),
        },
      });
  });
}

export async function storeClaim(db: Executor, input: { userId: ServiceUserId; chainId: string; taskId: string | null }) {
  await db.insert(rewardClaims).values({
    userId: input.userId,
    kind: input.taskId === null ? 'chain' : 'task',
    chainId: input.chainId,
    taskId: input.taskId,
    reward: {},
    claimedDay: claimedDayOf(input.chainId),
  });
}

/**
 * What the matcher still has to do: pending events and users flagged for
 * evaluation, counted in one snapshot (repeatable read), so work moving from
 * one to the other between the two counts cannot look like none.
 */
export function pendingWork(db: Database): Promise<{ events: number; users: number }> {
  return db.transaction(
    async (tx) => {
      const [pending] = await tx.select({ n: count() }).from(pendingEvents);
      const [flagged] = await tx.select({ n: count() }).from(users).where(eq(users.needsEvaluation, true));
      return { events: pending!.n, users: flagged!.n };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

/** True once nothing is pending: every event processed and no user waiting for re-evaluation (for `eventually`). */
export async function nothingPending(db: Database): Promise<true | undefined> {
  const left = await pendingWork(db);
  return left.events === 0 && left.users === 0 ? true : undefined;
}

/** Whether the event still waits for the matcher (its pending row exists). */
export async function isPending(db: Executor, eventId: string): Promise<boolean> {
  const [row] = await db.select({ n: count() }).from(pendingEvents).where(eq(pendingEvents.eventId, eventId));
  return row!.n > 0;
}
