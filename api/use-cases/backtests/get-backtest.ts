import { findBacktest, takeOverStaleBacktest, type StoredBacktest } from '../../../shared/db/backtest-store.js';
import { notFound } from '../../../shared/errors.js';
import type { AppDeps } from '../../app-env.js';
import { BACKTEST_STALE_MS, launchBacktest, RUNNER_ID } from './run-backtest.js';

/**
 * GET /admin/v1/backtests/{id}. A running backtest whose process stopped
 * checkpointing (it died or was redeployed) is taken over here and resumed
 * from its last page: reading it is what shows someone still wants it.
 */
export async function getBacktest(deps: Pick<AppDeps, 'db' | 'logger'>, input: { backtestId: string }): Promise<StoredBacktest> {
  const backtest = await findBacktest(deps.db, input.backtestId);
  if (!backtest) throw notFound(`Backtest ${input.backtestId} not found`, 'id');
  if (backtest.status === 'running' && backtest.runnerId !== RUNNER_ID) {
    const taken = await takeOverStaleBacktest(deps.db, backtest.id, RUNNER_ID, BACKTEST_STALE_MS);
    if (taken) {
      deps.logger.info({ backtestId: taken.id, from: backtest.runnerId }, 'resuming a backtest whose process stopped');
      launchBacktest(deps, taken);
      return taken;
    }
  }
  return backtest;
}
