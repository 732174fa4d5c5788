import type { JobsOptions } from 'bullmq';
import { z } from 'zod';

/**
 * The backtest queue's contract (product rules §12). A queue of its own, so a
 * long backtest never holds a matching slot; a job carries the backtest's id
 * only, and its state (cursor, counts) lives in Postgres, checkpointed after
 * every page. A worker that dies mid-run leaves a stalled job, which BullMQ
 * hands to another worker; that one resumes from the last checkpoint.
 */
export const BACKTEST_QUEUE = 'backtests';

export const backtestJobPayloads = {
  'run-backtest': z.object({ backtestId: z.uuid() }),
} as const;

export type BacktestJobPayload = z.infer<(typeof backtestJobPayloads)['run-backtest']>;

/** One job per backtest while it waits or runs: adding it again (a retry, the reconciler) is a no-op. */
export const backtestJobId = (payload: BacktestJobPayload) => `backtest-${payload.backtestId}`;

export const backtestJobOptions: JobsOptions = {
  // A failed run records `failed` in Postgres itself; a job is retried only when its process died (stalled).
  attempts: 1,
  removeOnComplete: true,
  removeOnFail: { count: 100 },
};

/** Stalls a backtest job survives (each a worker lost mid-run) before BullMQ fails it. */
export const BACKTEST_MAX_STALLS = 10;
