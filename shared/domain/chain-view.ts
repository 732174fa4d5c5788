import type { TaskCondition } from './conditions.js';
import { EMPTY_TALLY, fromMicros, isAccumulating, periodOf, periodsBetween, type Tally } from './tally.js';

// Fields derived from completions for the read side (product rules §5).

export type TaskUserStatus = 'completed' | 'available' | 'locked';
type ProgressStatus = 'not_started' | 'in_progress' | 'completed';

export type UserProgress = {
  status: ProgressStatus;
  progress: number;
  completedTasks: number;
  totalTasks: number;
  completedUs: bigint | null;
  joinedUs: bigint;
};

/**
 * §5: a chain is completed once every one of its tasks is. The single
 * definition for the read, the matcher's summary row and reward claims; a
 * chain without tasks is never completed (there is nothing to have done).
 */
export function isChainCompleted(totalTasks: number, completedTasks: number): boolean {
  return totalTasks > 0 && completedTasks === totalTasks;
}

/**
 * When a user joins a chain: the later of their registration and its start
 * (a repeating chain's run: the run's start). The active read shows it as
 * `joined_at`; the chain stats measure each completion from it.
 */
export const joinedUs = (registeredUs: bigint, startUs: bigint): bigint => (registeredUs > startUs ? registeredUs : startUs);

export function taskStatuses(
  allowAnyOrder: boolean,
  tasks: readonly { id: string; sequenceNumber: number }[],
  completedTaskIds: ReadonlySet<string>,
): Map<string, TaskUserStatus> {
  const ordered = [...tasks].sort((a, b) => a.sequenceNumber - b.sequenceNumber);
  // computeCompletions only ever completes a prefix of an ordered chain, but
  // stored state could disagree (e.g. a task added later); the current task is
  // then still the lowest-numbered open one and nothing completed is hidden.
  const current = allowAnyOrder ? undefined : ordered.find((t) => !completedTaskIds.has(t.id));
  const statuses = new Map<string, TaskUserStatus>();
  for (const t of ordered) {
    if (completedTaskIds.has(t.id)) statuses.set(t.id, 'completed');
    else if (allowAnyOrder || t === current) statuses.set(t.id, 'available');
    else statuses.set(t.id, 'locked');
  }
  return statuses;
}

export function userProgress(input: {
  totalTasks: number;
  completions: readonly { completedUs: bigint }[];
  registeredUs: bigint;
  chainStartUs: bigint;
}): UserProgress {
  const { totalTasks, completions, registeredUs, chainStartUs } = input;
  const completedTasks = completions.length;
  if (completedTasks > totalTasks) {
    // Callers pass this chain's completions; more than its tasks is a bug upstream.
    throw new RangeError(`${completedTasks} completions for ${totalTasks} tasks`);
  }
  const allDone = isChainCompleted(totalTasks, completedTasks);
  let completedUs: bigint | null = null;
  if (allDone) {
    for (const c of completions) {
      if (completedUs === null || c.completedUs > completedUs) completedUs = c.completedUs;
    }
  }
  return {
    status: allDone ? 'completed' : completedTasks === 0 ? 'not_started' : 'in_progress',
    // Integer math: 100 * c / t is exact in doubles for any realistic count.
    progress: totalTasks === 0 ? 0 : Math.floor((100 * completedTasks) / totalTasks),
    completedTasks,
    totalTasks,
    completedUs,
    joinedUs: joinedUs(registeredUs, chainStartUs),
  };
}

/** What a user has gathered toward a counted, summed or streak task (§16), as the read shows it. */
export type TaskProgress = {
  count: number;
  countRequired: number;
  /** null: the task sets no total. */
  total: number | null;
  totalRequired: number | null;
  /** null: the task sets no streak. */
  streak: number | null;
  streakRequired: number | null;
};

/**
 * A task's progress from its tally, or undefined for a task one event
 * completes. An open streak task's streak is 0 once a whole period has passed
 * without a counted event (the streak is broken, even before the next event
 * says so); a completed task shows the streak it completed with.
 */
export function taskProgress(
  task: TaskCondition,
  tally: Tally | undefined,
  completed: boolean,
  nowUs: bigint,
  timezone: string,
): TaskProgress | undefined {
  if (!isAccumulating(task)) return undefined;
  const { count, totalMicros, streak, lastPeriod } = tally ?? EMPTY_TALLY;
  const broken =
    task.streak != null &&
    !completed &&
    lastPeriod !== null &&
    periodsBetween(lastPeriod, periodOf(nowUs, task.streak.every, timezone)) > 1;
  return {
    count,
    countRequired: task.minCount ?? 1,
    total: task.minTotal == null ? null : fromMicros(totalMicros),
    totalRequired: task.minTotal ?? null,
    streak: task.streak == null ? null : broken ? 0 : streak,
    streakRequired: task.streak?.periods ?? null,
  };
}

/** A task's progress as GET active and the task.completed webhook spell it. */
export function taskProgressWire(progress: TaskProgress) {
  return {
    count: progress.count,
    count_required: progress.countRequired,
    total: progress.total,
    total_required: progress.totalRequired,
    streak: progress.streak,
    streak_required: progress.streakRequired,
  };
}
