import { deleteTestData } from '../../shared/db/test-data-store.js';
import { withTransaction } from '../../shared/db/transaction.js';
import type { CoreDeps } from '../deps.js';

/**
 * POST /v1/test/reset (docs/test-mode.md): deletes everything the caller's
 * test mode holds (users, events, progress, links, claims, webhook endpoints
 * and messages, backtests) in one transaction; test chains stay, with their
 * counters back at zero. The caller is a test twin: authorization refuses live
 * credentials before this runs (the operation is test-only, shared/domain/permissions.ts).
 */
export function resetTestData(deps: Pick<CoreDeps, 'db'>, input: { twinProviderId: string }): Promise<Record<string, number>> {
  return withTransaction(deps.db, (tx) => deleteTestData(tx, input.twinProviderId));
}
