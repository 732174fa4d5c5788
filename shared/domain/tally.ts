import type { CountingEvent, StreakCondition, TaskCondition } from './conditions.js';

// Counted, summed and streak tasks (docs/quest-language.md, §16): what a
// task has gathered from the events the §5 walk gave it, and when that is
// enough. Pure: the walk (progress.ts) folds events into tallies in §5 order.

export type StreakEvery = StreakCondition['every'];

/**
 * What a task has counted so far. `totalMicros`: the sum of the counted
 * events' amounts in millionths, summed as integers so that 0.7 + 0.1 meets
 * a total of 0.8 (doubles would not). `run`: consecutive periods with a
 * counted event, ending at `lastPeriod` (null before the first).
 */
export type Tally = { count: number; totalMicros: number; run: number; lastPeriod: number | null };

/** Tallies as stored (JSON), by task id. */
export type StoredTallies = Record<string, Tally>;

export const EMPTY_TALLY: Tally = { count: 0, totalMicros: 0, run: 0, lastPeriod: null };

/** Sums are kept to six decimal places. */
export const toMicros = (amount: number): number => Math.round(amount * 1_000_000);
export const fromMicros = (micros: number): number => micros / 1_000_000;

/** A task that needs more than one event: its progress is a tally the walk must keep between events. */
export function isAccumulating(task: TaskCondition): boolean {
  return (task.minCount ?? 1) > 1 || (task.minTotal ?? null) !== null || (task.streak ?? null) !== null;
}

/** The tally after one more event counted toward `task`. */
export function countEvent(task: TaskCondition, tally: Tally, event: CountingEvent, timezone: string): Tally {
  const counted = { ...tally, count: tally.count + 1, totalMicros: tally.totalMicros + toMicros(event.amount ?? 0) };
  if (!task.streak) return counted;
  const period = periodOf(event.occurredUs, task.streak.every, timezone);
  if (period === tally.lastPeriod) return counted;
  const run = tally.lastPeriod !== null && period === tally.lastPeriod + 1 ? tally.run + 1 : 1;
  return { ...counted, run, lastPeriod: period };
}

/** Whether the tally meets every threshold the task sets (a plain task: its first counted event). */
export function meetsThresholds(task: TaskCondition, tally: Tally): boolean {
  if (tally.count < (task.minCount ?? 1)) return false;
  if (task.minTotal != null && tally.totalMicros < toMicros(task.minTotal)) return false;
  if (task.streak && tally.run < task.streak.periods) return false;
  return true;
}

const MICROS_PER_DAY = 86_400_000_000n;
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** Whether `timezone` names an IANA zone this runtime knows (UTC included). */
export function isKnownTimezone(timezone: string): boolean {
  try {
    localDay(0n, timezone);
    return true;
  } catch {
    return false;
  }
}

/** Days since 1970-01-01 of the calendar date at `occurredUs` in `timezone`. */
function localDay(occurredUs: bigint, timezone: string): number {
  if (timezone === 'UTC') return Number(floorDiv(occurredUs, MICROS_PER_DAY));
  let format = dateFormats.get(timezone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: timezone, year: 'numeric', month: 'numeric', day: 'numeric' });
    dateFormats.set(timezone, format);
  }
  const parts = format.formatToParts(new Date(Number(floorDiv(occurredUs, 1000n))));
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return Date.UTC(part('year'), part('month') - 1, part('day')) / 86_400_000;
}

/**
 * The period index of a timestamp: its local day, or its week (weeks start on
 * Monday; 1970-01-01 was a Thursday, so day 0 is in week 0 and day -3 starts it).
 */
export function periodOf(occurredUs: bigint, every: StreakEvery, timezone: string): number {
  const day = localDay(occurredUs, timezone);
  return every === 'day' ? day : Math.floor((day + 3) / 7);
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}
