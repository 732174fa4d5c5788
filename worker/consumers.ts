import { Worker } from 'bullmq';
import { refreshAfterCommit } from '../core/leaderboards/refresh-standings.js';
import { withTimeout } from '../shared/async/with-timeout.js';
import type { Config } from '../shared/config.js';
import { AUTO_CLAIM_CONCURRENCY, AUTO_CLAIM_QUEUE } from '../shared/queue/auto-claim-contract.js';
import { BACKTEST_MAX_STALLS, BACKTEST_QUEUE } from '../shared/queue/backtest-contract.js';
import { WEBHOOK_QUEUE } from '../shared/queue/webhook-contract.js';
import { createAutoClaimProcessor } from './auto-claims/processor.js';
import { createBacktestProcessor } from './backtests/processor.js';
import { backOffOnErrors } from './error-backoff.js';
import { createPartitionConsumers } from './partition-consumers.js';
import { createProcessor } from './processor.js';
import { createDeliveryProcessor } from './webhooks/delivery.js';
import { createMatchingFirstGate } from './webhooks/matching-first.js';
import type { Sender } from './webhooks/send.js';
import type { WorkerWiring } from './worker-wiring.js';

/**
 * The BullMQ consumers of one worker process: the matching partitions' (started
 * and stopped as its partition leases come and go, partition-leases.ts), the
 * webhook deliveries', the backtests' and the auto-claims' (each only with its role,
 * WORKER_ROLES). `close` stops the error backoffs and waits for the active
 * jobs (a backtest stops at its next page and resumes elsewhere).
 */
export function startConsumers(
  config: Config,
  wiring: WorkerWiring,
  options: { matches: boolean; delivers: boolean; sender: Sender; isShuttingDown: () => boolean },
) {
  const { deps, metrics, queues, consumerRedis, databases } = wiring;
  const { logger } = deps;
  const { layout } = queues;
  // One processor (one batcher) for every partition consumed: jobs of all partitions are matched together.
  const processor = createProcessor({
    ...deps,
    maxBatchSize: config.MATCH_BATCH_SIZE,
    batchesInFlight: config.MATCH_BATCHES_IN_FLIGHT,
    batchLingerMs: config.MATCH_BATCH_LINGER_MS,
    walksKept: config.MATCH_WALKS_KEPT,
    onEventProcessed: (receivedUs) => metrics.eventProcessed(receivedUs),
    onWalksRead: (kept, loaded) => metrics.walksRead(kept, loaded),
    webhooks: { producer: queues.webhooks },
    autoClaims: { producer: queues.autoClaims },
    refreshStandings: (userIds) => refreshAfterCommit({ ...deps, config }, userIds),
  });
  // WORKER_CONCURRENCY is this process's intake over every partition it consumes.
  const partitions = createPartitionConsumers({
    layout,
    connection: consumerRedis,
    processor,
    intake: config.WORKER_CONCURRENCY,
    jobLockMs: config.JOB_LOCK_MS,
    logger,
    onCompleted: (job) => metrics.jobProcessed(job.name),
    onFailed: (job) => metrics.jobFailed(job?.name ?? 'unknown'),
  });
  // First attempts give way to a matching backlog in any partition (every worker's, not only this one's), for at most
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
  // Rewards of auto-claim chains (§18.5), claimed as a platform's claim is, on connections of their own.
  const autoClaimWorkers = (options.matches ? [AUTO_CLAIM_QUEUE] : []).map(
    (queue) =>
      new Worker(
        queue,
        createAutoClaimProcessor({
          db: databases.autoClaims,
          logger,
          webhooks: queues.webhooks,
          changes: wiring.changes,
          // A points credit shows on the leaderboards at once, as a platform's claim does (§19).
          standings: deps.standings,
          config,
        }),
        { connection: consumerRedis, prefix: layout.autoClaimPrefix, concurrency: AUTO_CLAIM_CONCURRENCY },
      ),
  );
  // Connection errors are logged (rate-limited) and a worker that keeps failing pauses its fetching (error-backoff.ts).
  const backoffs: ReturnType<typeof backOffOnErrors>[] = [];
  for (const worker of backtestWorkers) {
    worker.on('failed', (job, error) => logger.warn({ jobId: job?.id, job: job?.name, err: error }, 'backtest job failed'));
    backoffs.push(backOffOnErrors(worker, logger, BACKTEST_QUEUE));
  }
  for (const worker of autoClaimWorkers) {
    worker.on('failed', (job, error) => logger.warn({ jobId: job?.id, job: job?.name, err: error }, 'auto-claim job failed'));
    backoffs.push(backOffOnErrors(worker, logger, AUTO_CLAIM_QUEUE));
  }
  for (const worker of webhookWorkers) {
    worker.on('failed', (job, error) => logger.warn({ jobId: job?.id, job: job?.name, err: error }, 'webhook job failed'));
    backoffs.push(backOffOnErrors(worker, logger, WEBHOOK_QUEUE));
  }
  return {
    /** The matching partitions' consumers: what the partition leases start and stop. */
    partitions,
    async close() {
      for (const backoff of backoffs) backoff.stop();
      await Promise.all([
        partitions.close(),
        ...[...webhookWorkers, ...backtestWorkers, ...autoClaimWorkers].map((worker) => worker.close()),
      ]);
    },
  };
}
