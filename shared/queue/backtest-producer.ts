import { Queue } from 'bullmq';
import { BACKTEST_QUEUE, backtestJobId, backtestJobOptions, backtestJobPayloads } from './backtest-contract.js';
import { addBestEffort } from './best-effort-add.js';
import type { RedisClient } from './connection.js';

export interface BacktestProducer {
  /** Queues the run of a stored backtest. Best effort: false when Redis is away (the worker's reconciler queues every running backtest again). */
  run(backtestId: string): Promise<boolean>;
  queue: Queue;
  close(): Promise<void>;
}

export function createBacktestProducer(connection: RedisClient, prefix: string): BacktestProducer {
  const queue = new Queue(BACKTEST_QUEUE, { connection, prefix, defaultJobOptions: backtestJobOptions });
  queue.on('error', () => {});
  return {
    run(backtestId) {
      const data = backtestJobPayloads['run-backtest'].parse({ backtestId });
      return addBestEffort(connection, queue, [{ name: 'run-backtest', data, opts: { jobId: backtestJobId(data) } }]);
    },
    queue,
    close: () => queue.close(),
  };
}
