import { localDay, mondayOf } from './calendar.js';
import type { CountingEvent, StreakCondition, TaskCondition } from './conditions.js';

// Counted, summed and streak tasks (docs/quest-language.md, §16): what a
// task has gathered from the events the §5 walk gave it, and when that is
// enough. Pure: the walk (walk.ts) folds events into tallies in §5 order.

export type StreakEvery = StreakCondition['every'];

/**
 * What a task has counted so far. `totalMicros`: the sum of the counted
 * events' amounts in millionths, summed as integers so that 0.7 + 0.1 meets
 * a total of 0.8 (doubles would not). `streak`: consecutive periods with a
 * counted event, ending at `lastPeriod` (null before the first).
 */
export type Tally = { count: number; totalMicros: number; streak: number; lastPeriod: number | null };

/** Tallies as stored (JSON), by task id. */
export type StoredTallies = Record<string, Tally>;

export const EMPTY_TALLY: Tally = { count: 0, totalMicros: 0, streak: 0, lastPeriod: null };

/** Sums are kept to six decimal places. */
const toMicros = (amount: number): number => Math.round(amount * 1_000_000);
export const fromMicros = (micros: number): number => micros / 1_000_000;

/** A task that needs more than one event: its progress is a tally the walk must keep between events. */
export function isAccumulating(task: TaskCondition): boolean {
  return (task.minCount ?? 1) > 1 || (task.minTotal ?? null) !== null || (task.streak ?? null) !== null;
}

/** The tally with one more event in its count and total; its streak as it was. */
const withCounted = (tally: Tally, event: CountingEvent): Tally => ({
  ...tally,
  count: tally.count + 1,
  totalMicros: tally.totalMicros + toMicros(event.amount ?? 0),
});

/** The tally after one more event counted toward `task`. */
export function countEvent(task: TaskCondition, tally: Tally, event: CountingEvent, timezone: string): Tally {
  const counted = withCounted(tally, event);
  if (!task.streak) return counted;
  const period = periodOf(event.occurredUs, task.streak.every, timezone);
  if (tally.lastPeriod === null) return { ...counted, streak: 1, lastPeriod: period };
  const after = periodsBetween(tally.lastPeriod, period);
  if (after === 0) return counted;
  return { ...counted, streak: after === 1 ? tally.streak + 1 : 1, lastPeriod: period };
}

/**
 * The tally of a task still open at the end of its walk with one more event
 * counted that lies before the walk's mark (a late event), when that is the
 * tally the walk over every event would end with and the task stays open;
 * null when only walking again can tell (docs/quest-language.md, "Late
 * events absorbed"). Counts and totals do not depend on order, and only grow, so a
 * task that the final tally leaves open was open at every step. A streak
 * depends on order: the event is absorbed when it falls in a period of the
 * streak's current run, the last counted period included (that period has
 * an event already, so no running streak changes, and within the run the
 * running streak only grows to the final one), or after it (the event is
 * then the task's last step). An event before the current run could join an
 * earlier run, whose streak with a count or total may have met the task at
 * an earlier step: only the redo can tell.
 */
export function absorbLateEvent(task: TaskCondition, tally: Tally, event: CountingEvent, timezone: string): Tally | null {
  const absorbed = lateTally(task, tally, event, timezone);
  return absorbed === null || meetsThresholds(task, absorbed) ? null : absorbed;
}

function lateTally(task: TaskCondition, tally: Tally, event: CountingEvent, timezone: string): Tally | null {
  if (!task.streak || tally.lastPeriod === null) return countEvent(task, tally, event, timezone);
  const period = periodOf(event.occurredUs, task.streak.every, timezone);
  const before = periodsBetween(period, tally.lastPeriod);
  if (before <= 0) return countEvent(task, tally, event, timezone);
  const inCurrentRun = before < tally.streak;
  return inCurrentRun ? withCounted(tally, event) : null;
}

/** Whether the tally meets every threshold the task sets (a plain task: its first counted event). */
export function meetsThresholds(task: TaskCondition, tally: Tally): boolean {
  if (tally.count < (task.minCount ?? 1)) return false;
  if (task.minTotal != null && tally.totalMicros < toMicros(task.minTotal)) return false;
  if (task.streak && tally.streak < task.streak.periods) return false;
  return true;
}

/**
 * The period index of a timestamp: its local day, or its week (the week's
 * Monday, calendar.ts, counted in weeks). A week's index is a fraction (a
 * Monday's day number over 7), and stored tallies keep it so: compare periods
 * with periodsBetween, never with `===` on a sum (in doubles, m / 7 + 1 is not
 * (m + 7) / 7 for a few weeks, e.g. the one of 1989-08-14).
 */
export function periodOf(occurredUs: bigint, every: StreakEvery, timezone: string): number {
  const day = localDay(occurredUs, timezone);
  return every === 'day' ? day : mondayOf(day) / 7;
}

/** Whole periods from `earlier` to `later` (negative when `later` is before): 0 in the same period, 1 in the next. */
export const periodsBetween = (earlier: number, later: number): number => Math.round(later - earlier);

/** What a live `progress` message says of a counted, summed or streak task: its tally as stored (the thresholds are in the chain, as GET active shows it). */
export type TallyNotice = {
  quest_chain_id: string;
  task_id: string;
  period_start: string | null;
  count: number;
  total: number;
  streak: number;
};

/** The notices of one walk's tallies, in task id order; `runStart` is the run's start (null for a chain that does not repeat). */
export function tallyNotices(chainId: string, runStart: string | null, tallies: StoredTallies): TallyNotice[] {
  return Object.keys(tallies)
    .sort()
    .map((taskId) => {
      const { count, totalMicros, streak } = tallies[taskId]!;
      return {
        quest_chain_id: chainId,
        task_id: taskId,
        period_start: runStart,
        count,
        total: fromMicros(totalMicros),
        streak,
      };
    });
}
