import {
  activeBoards,
  advanceFinalizedUntil,
  type FinalizedPeriod,
  finalizePeriod,
  finalStandings,
  findFinalizedPeriod,
  type Leaderboard,
} from '../../shared/db/leaderboard-store.js';
import { withTransaction } from '../../shared/db/transaction.js';
import { insertMessages } from '../../shared/db/webhook-message-store.js';
import { FINALIZED_FACT_ENTRIES, nextPeriod, type Period, periodStartingAt } from '../../shared/domain/leaderboards.js';
import { dateToMicros } from '../../shared/domain/timestamp.js';
import type { CoreDeps } from '../deps.js';
import { leaderboardFinalizedFact } from '../webhooks/leaderboard-fact.js';
import { isSettled, periodKey, timingOf } from './periods.js';

type FinalizeDeps = Pick<CoreDeps, 'db' | 'webhooks' | 'standings' | 'logger'>;

/**
 * Makes a finished period's standings final, once whoever asks first (the
 * worker's finalizer, or a read of the period): computed from the source in
 * one transaction, the top `size` stored, and for a period the board lived
 * through, the `leaderboard.finalized` fact written to the outbox with them.
 * Answers the stored period (the one stored before, when another call won).
 */
export async function finalizeOne(
  deps: FinalizeDeps,
  board: Leaderboard,
  period: { startUs: bigint; endUs: bigint },
): Promise<FinalizedPeriod> {
  const announce = period.startUs >= board.finalizedUntilUs;
  const outcome = await withTransaction(deps.db, async (tx) => {
    const finalized = await finalizePeriod(tx, board, period);
    if (!finalized) return { finalized: null, messageIds: [] };
    if (!announce) return { finalized, messageIds: [] };
    const top = await finalStandings(tx, board.id, period.startUs, {
      first: 1,
      last: Math.min(board.size, FINALIZED_FACT_ENTRIES),
    });
    return { finalized, messageIds: await insertMessages(tx, [leaderboardFinalizedFact(board, finalized, top)]) };
  });
  if (outcome.messageIds.length > 0)
    // Best effort, like every first attempt: the webhook sweeper sends what was not queued.
    await deps.webhooks.deliverNew(outcome.messageIds);
  // Final reads come from Postgres now: the period's set in Redis is no longer needed.
  if (outcome.finalized)
    await deps.standings
      .forget(periodKey(board, period))
      .catch((error: unknown) => deps.logger.debug({ err: error }, 'final standings left in Redis until they expire'));
  const stored = outcome.finalized ?? (await findFinalizedPeriod(deps.db, board.id, period.startUs));
  if (!stored) throw new Error(`leaderboard ${board.id}: period ${period.startUs} neither finalized nor found`);
  return stored;
}

/** Most periods of one board one round finalizes (a board created long after its start catches up over rounds). */
const PERIODS_PER_ROUND = 50;

/**
 * The worker's round (worker/leaderboards/finalizer.ts): every active board's
 * periods from its mark that are over and settled (LEADERBOARD_SETTLE_MS)
 * are finalized in order, and the mark moves past them. Answers how many
 * periods this round finalized or found final.
 */
export async function finalizeDuePeriods(
  deps: FinalizeDeps & Pick<CoreDeps, 'config'>,
  nowUs: bigint = dateToMicros(new Date()),
): Promise<number> {
  let done = 0;
  for (const board of await activeBoards(deps.db)) {
    const timing = timingOf(board);
    let period: Period | null = periodStartingAt(timing, board.finalizedUntilUs);
    for (let n = 0; period && n < PERIODS_PER_ROUND && isSettled(period, nowUs, deps.config.LEADERBOARD_SETTLE_MS); n++) {
      const endUs = period.endUs!;
      await finalizeOne(deps, board, { startUs: period.startUs, endUs });
      await advanceFinalizedUntil(deps.db, board.id, endUs);
      done++;
      period = nextPeriod(timing, period);
    }
  }
  return done;
}
