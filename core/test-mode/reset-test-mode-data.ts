import { activeBoardsOf } from '../../shared/db/leaderboard-store.js';
import { deleteTestModeData } from '../../shared/db/test-mode-data-store.js';
import { withTransaction } from '../../shared/db/transaction.js';
import { dateToMicros } from '../../shared/domain/timestamp.js';
import type { CoreDeps } from '../deps.js';
import { openPeriods, periodKey } from '../leaderboards/periods.js';

/**
 * POST /v1/test/reset (docs/test-mode.md): deletes everything the caller's
 * test mode holds (users, events, progress, links, claims, webhook endpoints
 * and messages, backtests) in one transaction; test chains stay, with their
 * counters back at zero. The caller is a test twin: authorization refuses live
 * credentials before this runs (the operation is test-only, shared/domain/permissions.ts).
 */
export async function resetTestModeData(
  deps: Pick<CoreDeps, 'db' | 'changes' | 'standings' | 'logger'>,
  input: { twinProviderId: string },
  nowUs: bigint = dateToMicros(new Date()),
): Promise<Record<string, number>> {
  const deleted = await withTransaction(deps.db, (tx) => deleteTestModeData(tx, input.twinProviderId));
  // No progress notice tells of a deletion: every answer of the test mode changed.
  await deps.changes.answersChanged(input.twinProviderId);
  // The test leaderboards' standings in Redis go too: their next read rebuilds them from the (now empty) rows.
  const boards = await activeBoardsOf(deps.db, [input.twinProviderId]);
  await Promise.all(
    boards.flatMap((board) => openPeriods(board, nowUs).map((period) => deps.standings.forget(periodKey(board, period)))),
  ).catch((error: unknown) =>
    deps.logger.warn({ err: error }, 'test leaderboards left in Redis; they expire with their periods'),
  );
  return deleted;
}
