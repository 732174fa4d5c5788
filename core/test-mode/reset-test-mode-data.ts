import { deleteTestModeData } from '../../shared/db/test-mode-data-store.js';
import { withTransaction } from '../../shared/db/transaction.js';
import type { CoreDeps } from '../deps.js';

/**
 * POST /v1/test/reset (docs/test-mode.md): deletes everything the caller's
 * test mode holds (users, events, progress, links, claims, webhook endpoints
 * and messages, backtests) in one transaction; test chains stay, with their
 * counters back at zero. The caller is a test twin: authorization refuses live
 * credentials before this runs (the operation is test-only, shared/domain/permissions.ts).
 */
export async function resetTestModeData(
  deps: Pick<CoreDeps, 'db' | 'changes'>,
  input: { twinProviderId: string },
): Promise<Record<string, number>> {
  const deleted = await withTransaction(deps.db, (tx) => deleteTestModeData(tx, input.twinProviderId));
  // No progress notice tells of a deletion: every answer of the test mode changed.
  await deps.changes.answersChanged(input.twinProviderId);
  return deleted;
}
