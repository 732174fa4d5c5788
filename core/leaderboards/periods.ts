import type { Leaderboard } from '../../shared/db/leaderboard-store.js';
import { currentPeriod, type LeaderboardTiming, type Period, periodAt } from '../../shared/domain/leaderboards.js';
import type { PeriodKey } from '../../shared/leaderboards/standings-cache.js';

// Which periods of a board are in Redis and which are final (docs/leaderboards.md, "Periods").

export const timingOf = (board: Pick<Leaderboard, 'startUs' | 'endUs' | 'recurrence'>): LeaderboardTiming => ({
  startUs: board.startUs,
  endUs: board.endUs,
  recurrence: board.recurrence,
});

export const periodKey = (board: Pick<Leaderboard, 'id'>, period: Period): PeriodKey => ({
  boardId: board.id,
  periodStartUs: period.startUs,
});

/** Whether a period's standings are final at `nowUs`: it ended at least the settle time (LEADERBOARD_SETTLE_MS) ago. */
export const isSettled = (period: Period, nowUs: bigint, settleMs: number) =>
  period.endUs !== null && period.endUs + BigInt(settleMs) * 1000n <= nowUs;

/** When Redis may drop a period's standings: a day after they became final (never for a period without an end). */
export const expireAtMs = (period: Period, settleMs: number) =>
  period.endUs === null ? 0 : Number(period.endUs / 1000n) + settleMs + 86_400_000;

/** Most periods a change is written to: the current one and those still settling (normally one, at a boundary two). */
const KEPT_IN_STEP = 3;

/**
 * The periods a change of a user's score is written to in Redis: the current
 * one, once started, and the ones before it not yet final (still within the
 * settle time, or left behind by a late finalizer), latest first.
 */
export function openPeriods(board: Pick<Leaderboard, 'startUs' | 'endUs' | 'recurrence' | 'finalizedUntilUs'>, nowUs: bigint) {
  const periods: Period[] = [];
  for (
    let period: Period | null = currentPeriod(timingOf(board), nowUs);
    period !== null && periods.length < KEPT_IN_STEP && period.startUs >= board.finalizedUntilUs;
    period = period.startUs > board.startUs ? periodAt(timingOf(board), period.startUs - 1n) : null
  ) {
    if (period.startUs <= nowUs) periods.push(period);
  }
  return periods;
}
