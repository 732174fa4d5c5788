import { Worker } from 'bullmq';
import { withTimeout } from '../shared/async/with-timeout.js';
import type { Config } from '../shared/config.js';
import { BACKTEST_MAX_STALLS, BACKTEST_QUEUE } from '../shared/queue/backtest-contract.js';
import { MATCHING_QUEUE } from '../shared/queue/contract.js';
import { WEBHOOK_QUEUE } from '../shared/queue/webhook-contract.js';
import { createBacktestProcessor } from './backtests/processor.js';
import { backOffOnErrors } from './error-backoff.js';
import { createProcessor } from './processor.js';
import { createDeliveryProcessor } from './webhooks/delivery.js';
import { createMatchingFirstGate } from './webhooks/matching-first.js';
import type { Sender } from './webhooks/send.js';
import type { WorkerWiring } from './worker-wiring.js';

/**
 * The BullMQ consumers of one worker process: a worker per matching shard it
 * consumes, the webhook deliveries' and the backtests' (each only with its
 * role, WORKER_ROLES). `close` stops the error backoffs and waits for the
 * active jobs (a backtest stops at its next page and resumes elsewhere).
 */
export function startConsumers(
  config: Config,
  wiring: WorkerWiring,
  options: { shards: number[]; matches: boolean; delivers: boolean; sender: Sender; isShuttingDown: () => boolean },
) {
  const { deps, metrics, queues, consumerRedis, databases } = wiring;
  const { logger } = deps;
  const { layout } = queues;
  // One processor (one batcher) for every shard consumed: jobs of all shards are matched together.
  const processor = createProcessor({
    ...deps,
    maxBatchSize: config.MATCH_BATCH_SIZE,
    batchesInFlight: config.MATCH_BATCHES_IN_FLIGHT,
    batchLingerMs: config.MATCH_BATCH_LINGER_MS,
    walksKept: config.MATCH_WALKS_KEPT,
    onEventProcessed: (receivedUs) => metrics.eventProcessed(receivedUs),
    onWalksRead: (kept, loaded) => metrics.walksRead(kept, loaded),
    webhooks: { producer: queues.webhooks },
  });
  // WORKER_CONCURRENCY is this process's intake in all: shared out over the shards it consumes.
  const shardConcurrency = Math.max(1, Math.ceil(config.WORKER_CONCURRENCY / options.shards.length));
  const matchingWorkers = (options.matches ? options.shards : []).map(
    (shard) =>
      new Worker(MATCHING_QUEUE, processor, {
        connection: consumerRedis,
        prefix: layout.matchingPrefix(shard),
        concurrency: shardConcurrency,
        // A stopped or killed worker's jobs go back to the queue within 2 x JOB_LOCK_MS.
        lockDuration: config.JOB_LOCK_MS,
        stalledInterval: config.JOB_LOCK_MS,
        // A job whose worker died is retried instead of failed: its transaction never committed.
        maxStalledCount: 100,
      }),
  );
  // First attempts give way to a matching backlog on any shard (every worker's, not only this one's), for at most
  // WEBHOOK_YIELD_MS: jobs waiting, or more running than half a worker's intake (a worker takes up to
  // WORKER_CONCURRENCY jobs at once, so a backlog's last jobs are running, not waiting). A matcher that keeps
  // up runs a few jobs at a time and waits on none: then deliveries never wait.
  const busyActiveJobs = Math.max(1, Math.floor(config.WORKER_CONCURRENCY / 2));
  const matchingFirst = createMatchingFirstGate({
    backlog: async () => {
      // A Redis that does not answer within a second counts as no backlog: deliveries never hang on it.
      const counts = await withTimeout(
        queues.matching.getJobCounts('waiting', 'prioritized', 'active'),
        1000,
        'matching backlog read timed out',
      );
      return (counts.waiting ?? 0) + (counts.prioritized ?? 0) + Math.max(0, (counts.active ?? 0) - busyActiveJobs);
    },
    maxYieldMs: config.WEBHOOK_YIELD_MS,
    pollMs: 100,
  });
  // Deliveries on a queue of their own, so a slow receiver never holds up matching.
  const webhookWorkers = (options.delivers ? [WEBHOOK_QUEUE] : []).map(
    (queue) =>
      new Worker(
        queue,
        createDeliveryProcessor({
          db: databases.webhooks,
          logger,
          webhooks: queues.webhooks,
          sender: options.sender,
          retryScale: config.WEBHOOK_RETRY_SCALE,
          gate: matchingFirst,
        }),
        {
          connection: consumerRedis,
          prefix: layout.webhookPrefix,
          concurrency: config.WEBHOOK_CONCURRENCY,
          // An attempt lasts up to 10 s; the message's lease in Postgres, not this lock, keeps it from running twice.
          lockDuration: 30_000,
          maxStalledCount: 100,
        },
      ),
  );
  const backtestWorkers = (options.matches ? [BACKTEST_QUEUE] : []).map(
    (queue) =>
      new Worker(queue, createBacktestProcessor({ db: databases.backtests, logger }, options.isShuttingDown), {
        connection: consumerRedis,
        prefix: layout.backtestPrefix,
        concurrency: 1,
        // The run yields between pages, so the lock is renewed; a dead worker's backtest resumes elsewhere within 2 x JOB_LOCK_MS.
        lockDuration: config.JOB_LOCK_MS,
        stalledInterval: config.JOB_LOCK_MS,
        maxStalledCount: BACKTEST_MAX_STALLS,
      }),
  );
  // Connection errors are logged (rate-limited) and a worker that keeps failing pauses its fetching (error-backoff.ts).
  const backoffs: ReturnType<typeof backOffOnErrors>[] = [];
  for (const worker of backtestWorkers) {
    worker.on('failed', (job, error) => logger.warn({ jobId: job?.id, job: job?.name, err: error }, 'backtest job failed'));
    backoffs.push(backOffOnErrors(worker, logger, BACKTEST_QUEUE));
  }
  for (const worker of webhookWorkers) {
    worker.on('failed', (job, error) => logger.warn({ jobId: job?.id, job: job?.name, err: error }, 'webhook job failed'));
    backoffs.push(backOffOnErrors(worker, logger, WEBHOOK_QUEUE));
  }
  matchingWorkers.forEach((worker, i) => {
    const shard = options.shards[i]!;
    worker.on('failed', (job, error) => {
      logger.warn({ jobId: job?.id, job: job?.name, shard, attempts: job?.attemptsMade, err: error }, 'job failed');
    });
    backoffs.push(backOffOnErrors(worker, logger, `${MATCHING_QUEUE}:${shard}`));
    worker.on('completed', (job) => metrics.jobProcessed(job.name));
    worker.on('failed', (job) => metrics.jobFailed(job?.name ?? 'unknown'));
  });
  return {
    async close() {
      for (const backoff of backoffs) backoff.stop();
      await Promise.all([...matchingWorkers, ...webhookWorkers, ...backtestWorkers].map((worker) => worker.close()));
    },
  };
}
