import { type Job, UnrecoverableError } from 'bullmq';
import { runBacktest } from '../../core/backtests/run-backtest.js';
import { backtestJobPayloads } from '../../shared/queue/backtest-contract.js';
import type { WorkerDeps } from '../worker-deps.js';

/**
 * The backtest queue's processor: re-parses the job and runs the backtest
 * (core/backtests/run-backtest.ts) to its end. The job holds its
 * lock while the run yields between pages; if this process dies, BullMQ
 * hands the stalled job to another worker, which resumes from the last page.
 * On shutdown (`stopping`) the run ends at its next page and the job
 * completes; the sweeper (./sweeper.ts) queues the still-running backtest
 * again, for any worker.
 */
export function createBacktestProcessor(deps: Pick<WorkerDeps, 'db' | 'logger'>, stopping: () => boolean) {
  return async (job: Job): Promise<void> => {
    const parsed = backtestJobPayloads['run-backtest'].safeParse(job.data);
    if (job.name !== 'run-backtest' || !parsed.success) throw new UnrecoverableError(`invalid backtest job ${job.name}`);
    await runBacktest(deps, { ...parsed.data, stopping });
  };
}
