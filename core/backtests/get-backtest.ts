import { findBacktest, type StoredBacktest } from '../../shared/db/backtest-store.js';
import { notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';

/** GET /admin/v1/backtests/{id}: reads the backtest as its runner last checkpointed it. Starts nothing. */
export async function getBacktest(deps: Pick<CoreDeps, 'db'>, input: { backtestId: string }): Promise<StoredBacktest> {
  const backtest = await findBacktest(deps.db, input.backtestId);
  if (!backtest) throw notFound(`Backtest ${input.backtestId} not found`, 'id');
  return backtest;
}
