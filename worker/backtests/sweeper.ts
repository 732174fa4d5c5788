import { listRunningBacktestIds } from '../../shared/db/backtest-store.js';
import type { BacktestProducer } from '../../shared/queue/backtest-producer.js';
import { startPeriodic } from '../periodic.js';
import type { WorkerDeps } from '../worker-deps.js';

const PAGE = 100;

/**
 * The backtests' safety net, as the reconciler is the events': every running
 * backtest is queued again. Its job id is the backtest's, so one still
 * waiting or running is not added twice; one whose job never reached Redis
 * (down when the API stored it) or vanished with it (a restart empty) runs.
 */
async function sweepBacktestsOnce(deps: Pick<WorkerDeps, 'db'> & { backtests: BacktestProducer }): Promise<number> {
  const running = await listRunningBacktestIds(deps.db, PAGE);
  let queued = 0;
  for (const id of running) if (await deps.backtests.run(id)) queued += 1;
  return queued;
}

export function startBacktestSweeper(
  deps: Pick<WorkerDeps, 'db' | 'logger'> & { backtests: BacktestProducer },
  options: { intervalMs: number },
) {
  return startPeriodic({
    pass: () => sweepBacktestsOnce(deps),
    intervalMs: options.intervalMs,
    immediately: true,
    logger: deps.logger,
    failure: 'backtest sweep failed; will retry',
  });
}
