import { isKnownTimezone, TIMEZONE_RULE } from './calendar.js';
import { MAX_NAME_LENGTH, RECURRENCE_UNITS, type RuleIssue } from './chain-definition-rules.js';
import { type Recurrence, runAt, runStartingAt } from './recurrence.js';

// Leaderboards (product rules §19, docs/leaderboards.md): what makes one
// valid, its periods, and the order of its standings. Pure: the admin API's
// body publishes these limits, the use-cases check these rules, and the
// standings kept in Redis (shared/leaderboards/) and in Postgres
// (shared/db/leaderboard-store.ts) both follow `compareStandings`.

export const LEADERBOARD_METRICS = ['points', 'chains_completed'] as const;
export type LeaderboardMetric = (typeof LEADERBOARD_METRICS)[number];

export const LEADERBOARD_STATUSES = ['active', 'archived'] as const;
export type LeaderboardStatus = (typeof LEADERBOARD_STATUSES)[number];

export { MAX_NAME_LENGTH as MAX_LEADERBOARD_NAME_LENGTH, RECURRENCE_UNITS };

/** How many ranked entries a finished period keeps (its final standings): 1,000 unless the board says. */
export const DEFAULT_LEADERBOARD_SIZE = 1000;
export const MIN_LEADERBOARD_SIZE = 1;
export const MAX_LEADERBOARD_SIZE = 100_000;

/** Entries one read answers: 10 unless `limit` says, at most 100. */
export const DEFAULT_STANDINGS_LIMIT = 10;
export const MAX_STANDINGS_LIMIT = 100;

/** The top entries a `leaderboard.finalized` fact carries (fewer when the board keeps fewer). */
export const FINALIZED_FACT_ENTRIES = 100;

/** When a board's periods fall: its dates (no end: it runs on) and its recurrence. */
export interface LeaderboardTiming {
  startUs: bigint;
  endUs: bigint | null;
  recurrence: Recurrence | null;
}

/** One period of a board: [startUs, endUs); a board without an end and without recurrence has one period with no end. */
export interface Period {
  startUs: bigint;
  endUs: bigint | null;
}

// A board without an end runs to the last instant the domain formats (9999-12-31): the calendar of recurrence.ts
// needs a finite window, and no period reaches it.
const FOREVER_US = 253_402_300_800_000_000n;

const windowOf = (timing: LeaderboardTiming) => ({ startUs: timing.startUs, endUs: timing.endUs ?? FOREVER_US });
const openEnded = (run: { startUs: bigint; endUs: bigint }): Period => ({
  startUs: run.startUs,
  endUs: run.endUs === FOREVER_US ? null : run.endUs,
});

/** The period holding `us`, or null outside the board's dates. */
export function periodAt(timing: LeaderboardTiming, us: bigint): Period | null {
  const window = windowOf(timing);
  if (us < window.startUs || us >= window.endUs) return null;
  if (!timing.recurrence) return { startUs: timing.startUs, endUs: timing.endUs };
  return openEnded(runAt(window, timing.recurrence, us)!);
}

/** The period that starts at `startUs`, or null when none does. */
export function periodStartingAt(timing: LeaderboardTiming, startUs: bigint): Period | null {
  if (!timing.recurrence) return startUs === timing.startUs ? { startUs, endUs: timing.endUs } : null;
  const run = runStartingAt(windowOf(timing), timing.recurrence, startUs);
  return run === null ? null : openEnded(run);
}

/** The period a board is in at `nowUs`: the first before its start, the last after its end. */
export function currentPeriod(timing: LeaderboardTiming, nowUs: bigint): Period {
  const window = windowOf(timing);
  const at = nowUs < window.startUs ? window.startUs : nowUs >= window.endUs ? window.endUs - 1n : nowUs;
  return periodAt(timing, at)!;
}

/** The period after `period`, or null when it is the board's last. */
export function nextPeriod(timing: LeaderboardTiming, period: Period): Period | null {
  return period.endUs === null ? null : periodAt(timing, period.endUs);
}

/** Whether the period is over at `nowUs` (a period without an end never is). */
export const hasEnded = (period: Period, nowUs: bigint) => period.endUs !== null && period.endUs <= nowUs;

/**
 * The period a read names with `period_start`, or by default the current one.
 * A string: why the named period is refused (a 400 on `period_start`).
 */
export function requestedPeriod(timing: LeaderboardTiming, asked: bigint | undefined, nowUs: bigint): Period | string {
  if (asked === undefined) return currentPeriod(timing, nowUs);
  const period = periodStartingAt(timing, asked) ?? periodAt(timing, asked);
  // Answers name a period by its start in milliseconds: that names a start with finer digits too.
  if (period !== null && period.startUs / 1000n === asked / 1000n) return period;
  return "no period of the leaderboard starts there (the board's start_date, or the start of a day, week or month in its time zone)";
}

/** The fields of a board the rules read. */
export interface LeaderboardFields {
  startDate: bigint;
  endDate: bigint | null;
  recurrence: { every: string; timezone: string } | null;
  size: number;
}

/** Every rule the board breaks, in the order of its fields; empty when it is valid. */
export function leaderboardIssues(board: LeaderboardFields): RuleIssue[] {
  const issues: RuleIssue[] = [];
  if (board.endDate !== null && board.endDate <= board.startDate)
    issues.push({ path: ['end_date'], message: 'must be after start_date' });
  if (board.recurrence !== null) {
    if (!(RECURRENCE_UNITS as readonly string[]).includes(board.recurrence.every))
      issues.push({ path: ['recurrence', 'every'], message: `must be one of ${RECURRENCE_UNITS.join(', ')}` });
    if (!isKnownTimezone(board.recurrence.timezone)) issues.push({ path: ['recurrence', 'timezone'], message: TIMEZONE_RULE });
  }
  if (!Number.isInteger(board.size) || board.size < MIN_LEADERBOARD_SIZE || board.size > MAX_LEADERBOARD_SIZE)
    issues.push({ path: ['size'], message: `must be a whole number from ${MIN_LEADERBOARD_SIZE} to ${MAX_LEADERBOARD_SIZE}` });
  return issues;
}

/** A user's standing in one period: the score, when they reached it, and their id on the platform. */
export interface Standing {
  platformUserId: string;
  score: number;
  /** When the user's score became what it is (epoch µs): the time of the last entry or completion that counts. */
  reachedUs: bigint;
}

export interface RankedStanding extends Standing {
  rank: number;
}

const utf8 = new TextEncoder();

/** Byte order of the UTF-8 text: Redis's order of equal scores and Postgres's `COLLATE "C"`. */
export function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** §19's order: the higher score first, then whoever reached it first, then the platform user id (by bytes). */
export function compareStandings(a: Standing, b: Standing): number {
  if (a.score !== b.score) return b.score - a.score;
  if (a.reachedUs !== b.reachedUs) return a.reachedUs < b.reachedUs ? -1 : 1;
  return compareBytes(a.platformUserId, b.platformUserId);
}

/** The standings in order, ranked 1, 2, 3, … (no ties, no gaps); users without a positive score are not ranked. */
export function rankStandings(standings: readonly Standing[]): RankedStanding[] {
  return standings
    .filter((s) => s.score > 0)
    .sort(compareStandings)
    .map((s, i) => ({ ...s, rank: i + 1 }));
}

/**
 * The sorted-set member of a standing: the time it was reached, as 15 fixed
 * hex digits, then the platform user id. Redis orders equal scores by their
 * members' bytes, so with the score negated an ascending range is §19's
 * order exactly (no precision spent on packing two numbers in one double).
 */
const REACHED_OFFSET_US = 1n << 59n;
const REACHED_DIGITS = 15;

export function standingMember(reachedUs: bigint, platformUserId: string): string {
  return (reachedUs + REACHED_OFFSET_US).toString(16).padStart(REACHED_DIGITS, '0') + platformUserId;
}

export function parseStandingMember(member: string): { reachedUs: bigint; platformUserId: string } {
  return {
    reachedUs: BigInt(`0x${member.slice(0, REACHED_DIGITS)}`) - REACHED_OFFSET_US,
    platformUserId: member.slice(REACHED_DIGITS),
  };
}

/**
 * The ranks a read shows around the user ranked `rank` (1-based) among
 * `total`: `limit` of them with the user in the middle, shifted inward at
 * either end. Answers the first and last rank (1-based, inclusive).
 */
export function windowAround(rank: number, total: number, limit: number): { first: number; last: number } {
  const before = Math.floor((limit - 1) / 2);
  let first = Math.max(1, rank - before);
  const last = Math.min(total, first + limit - 1);
  first = Math.max(1, last - limit + 1);
  return { first, last };
}
