import { randomUUID } from 'node:crypto';
import { Worker } from 'bullmq';
import pino from 'pino';
import { loadConfig } from '../shared/config.js';
import { createDatabase } from '../shared/db/client.js';
import { migrateWithLock } from '../shared/db/migrate.js';
import { pingDatabase } from '../shared/db/ping.js';
import { createLogger } from '../shared/observability/logger.js';
import { pendingEventsBacklog } from '../shared/db/event-store.js';
import { createWorkerMetrics, PENDING_COUNT_CAP } from '../shared/observability/metrics.js';
import { createRedis } from '../shared/queue/connection.js';
import { MATCHING_QUEUE } from '../shared/queue/contract.js';
import { createMatchingProducer } from '../shared/queue/producer.js';
import { probeQueueSlots } from '../shared/queue/readiness.js';
import { queueLayout } from '../shared/queue/shards.js';
import { backOffOnErrors } from './error-backoff.js';
import { startHealthServer } from './health-server.js';
import { startLease, workerApplicationName } from './lease.js';
import { createLivePublisher } from './live-publisher.js';
import { createProcessor } from './processor.js';
import { startPartitionMaintenance } from './partition-maintenance.js';
import { startReconciler } from './reconciler.js';
import { WEBHOOK_QUEUE } from '../shared/queue/webhook-contract.js';
import { createWebhookProducer } from '../shared/queue/webhook-producer.js';
import { createDeliveryProcessor } from './webhooks/delivery.js';
import { createMatchingFirstGate } from './webhooks/matching-first.js';
import { withTimeout } from '../shared/async/with-timeout.js';
import { createSender } from './webhooks/send.js';
import { startSweeper } from './webhooks/sweeper.js';
import { createBacktestProcessor } from './backtests/processor.js';
import { startBacktestSweeper } from './backtests/sweeper.js';
import { BACKTEST_MAX_STALLS, BACKTEST_QUEUE } from '../shared/queue/backtest-contract.js';
import { createBacktestProducer } from '../shared/queue/backtest-producer.js';
import type { WorkerDeps } from './worker-deps.js';

const config = loadConfig();
// Synchronous writes: when a worker dies, its last lines are the ones that matter, and a
// job's cost is its database round trips, not one write to stdout.
const logger = createLogger({ level: config.LOG_LEVEL, name: 'worker', destination: pino.destination({ dest: 1, sync: true }) });

if (config.MIGRATE_ON_START) await migrateWithLock(config.DATABASE_URL);

// Names this process's sessions (application_name), so another worker can end them if its lease lapses (lease.ts).
const workerId = randomUUID();
const sessions = {
  url: config.DATABASE_URL,
  applicationName: workerApplicationName(workerId),
  timeouts: { statementMs: config.WORKER_STATEMENT_TIMEOUT_MS, lockMs: config.DB_LOCK_TIMEOUT_MS, idleInTransactionMs: config.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS },
};
// A connection per batch in flight (worker/matching/batcher.ts), plus the reconciler's and /readyz's.
const database = createDatabase({ ...sessions, poolSize: config.MATCH_BATCHES_IN_FLIGHT + 2 });
// Webhook deliveries' own connections: a burst of them never queues ahead of a matching batch.
const webhookDatabase = createDatabase({ ...sessions, poolSize: 3 });
// Backtests' own connection: a long backtest never queues ahead of a matching batch.
const backtestDatabase = createDatabase({ ...sessions, poolSize: 1 });
// The lease's own connection: its heartbeat never queues behind batches waiting for locks.
const leaseDatabase = createDatabase({ ...sessions, poolSize: 1 });
// REDIS_CLUSTER: every client an ioredis Cluster, hash-tagged queues, sharded live channels (docs/scaling.md).
const cluster = config.REDIS_CLUSTER;
const layout = queueLayout({ prefix: config.QUEUE_PREFIX, cluster, shards: config.MATCHING_QUEUE_SHARDS });
// The matching shards this worker consumes (WORKER_SHARDS), by default every one.
const consumedShards = config.WORKER_SHARDS ?? Array.from({ length: layout.shards }, (_, shard) => shard);
const workerRedis = createRedis(config.REDIS_URL, 'worker', { cluster, logger, name: 'worker' });
const producerRedis = createRedis(config.REDIS_URL, 'producer', { cluster, logger, name: 'producer' });
const producer = createMatchingProducer(
  producerRedis,
  layout,
  { windowMs: config.MATCH_FAIR_WINDOW_MS, quietEvents: config.MATCH_FAIR_QUIET_EVENTS },
  { logger },
);
const metrics = createWorkerMetrics({
  defaultMetrics: true,
  queue: producer,
  enqueueFailures: () => producer.failedJobs,
  redis: { worker: workerRedis, producer: producerRedis },
  // Sampled (every 5 s at most) and capped: a scrape never costs a full count of a large backlog.
  pendingEvents: () => pendingEventsBacklog(database.db, PENDING_COUNT_CAP),
});
const deps: WorkerDeps = { db: database.db, producer, logger, publish: createLivePublisher(producerRedis, config.QUEUE_PREFIX, logger, cluster) };
let shuttingDown = false;
// WORKER_ROLES: matching (and what goes with it) and webhook delivery, both by default; a process
// with one role leaves the other to processes started with it (docs/scaling.md, "Webhook delivery").
const matches = config.WORKER_ROLES.has('matching');
const delivers = config.WORKER_ROLES.has('webhooks');
const idle = { stop: async () => {} };

// The matcher enqueues first attempts whatever the roles: the queue is what another process delivers from.
const webhookProducer = createWebhookProducer(producerRedis, layout.webhookPrefix);
const sender = createSender({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE });
const sweeper = delivers
  ? startSweeper({ db: webhookDatabase.db, logger, webhooks: webhookProducer }, { intervalMs: config.RECONCILE_INTERVAL_MS, minAgeMs: config.RECONCILE_MIN_AGE_MS })
  : idle;

// Backtests (§12) on a queue of their own, one at a time per worker; the sweeper queues again any running one without a job.
const backtestProducer = createBacktestProducer(producerRedis, layout.backtestPrefix);
const backtestSweeper = matches
  ? startBacktestSweeper({ db: backtestDatabase.db, logger, backtests: backtestProducer }, { intervalMs: config.RECONCILE_INTERVAL_MS })
  : idle;

const reconciler = matches
  ? startReconciler(deps, {
      intervalMs: config.RECONCILE_INTERVAL_MS,
      minAgeMs: config.RECONCILE_MIN_AGE_MS,
      onPass: (counts) => metrics.reconciled(counts),
    })
  : { ...idle, runNow: async () => {} };
// The coming months' partitions of events, and retention (EVENT_RETENTION_MONTHS): now, then hourly.
const partitionMaintenance = matches ? startPartitionMaintenance(deps, { retentionMonths: config.EVENT_RETENTION_MONTHS }) : idle;
const lease = startLease(
  {
    db: leaseDatabase.db,
    logger,
    // The ended worker's claimed events were received before it stopped, at least a lease ago: put
    // them back now rather than after RECONCILE_MIN_AGE_MS and the next interval.
    onTakeover: () => reconciler.runNow(Math.max(0, config.WORKER_LEASE_MS - config.WORKER_HEARTBEAT_MS)),
  },
  { workerId, leaseMs: config.WORKER_LEASE_MS, heartbeatMs: config.WORKER_HEARTBEAT_MS },
);
// Not fatal if Postgres is away now: the heartbeat renews it once it answers.
await lease.start().catch((error: unknown) => logger.warn({ err: error }, 'could not take the first lease; the heartbeat retries'));

// One processor (one batcher) for every shard consumed: jobs of all shards are matched together.
const processor = createProcessor({
  ...deps,
  maxBatchSize: config.MATCH_BATCH_SIZE,
  batchesInFlight: config.MATCH_BATCHES_IN_FLIGHT,
  batchLingerMs: config.MATCH_BATCH_LINGER_MS,
  onEventProcessed: (receivedUs) => metrics.eventProcessed(receivedUs),
  webhooks: { producer: webhookProducer },
});
// WORKER_CONCURRENCY is this process's intake in all: shared out over the shards it consumes.
const shardConcurrency = Math.max(1, Math.ceil(config.WORKER_CONCURRENCY / consumedShards.length));
const workers = (matches ? consumedShards : []).map(
  (shard) =>
    new Worker(MATCHING_QUEUE, processor, {
      connection: workerRedis,
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
    const counts = await withTimeout(producer.getJobCounts('waiting', 'prioritized', 'active'), 1000, 'matching backlog read timed out');
    return (counts['waiting'] ?? 0) + (counts['prioritized'] ?? 0) + Math.max(0, (counts['active'] ?? 0) - busyActiveJobs);
  },
  maxYieldMs: config.WEBHOOK_YIELD_MS,
  pollMs: 100,
});
// Deliveries on a queue of their own, so a slow receiver never holds up matching.
const webhookWorkers = (delivers ? [WEBHOOK_QUEUE] : []).map(
  (queue) =>
    new Worker(
      queue,
      createDeliveryProcessor({ db: webhookDatabase.db, logger, webhooks: webhookProducer, sender, retryScale: config.WEBHOOK_RETRY_SCALE, gate: matchingFirst }),
      {
        connection: workerRedis,
        prefix: layout.webhookPrefix,
        concurrency: config.WEBHOOK_CONCURRENCY,
        // An attempt lasts up to 10 s; the message's lease in Postgres, not this lock, keeps it from running twice.
        lockDuration: 30_000,
        maxStalledCount: 100,
      },
    ),
);
const backtestWorkers = (matches ? [BACKTEST_QUEUE] : []).map(
  (queue) =>
    new Worker(queue, createBacktestProcessor({ db: backtestDatabase.db, logger }, () => shuttingDown), {
      connection: workerRedis,
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

workers.forEach((worker, i) => {
  const shard = consumedShards[i]!;
  worker.on('failed', (job, error) => {
    logger.warn({ jobId: job?.id, job: job?.name, shard, attempts: job?.attemptsMade, err: error }, 'job failed');
  });
  backoffs.push(backOffOnErrors(worker, logger, `${MATCHING_QUEUE}:${shard}`));
  worker.on('completed', (job) => metrics.jobProcessed(job.name));
  worker.on('failed', (job) => metrics.jobFailed(job?.name ?? 'unknown'));
});

const health = await startHealthServer({
  port: config.WORKER_HEALTH_PORT,
  host: config.HOST,
  isShuttingDown: () => shuttingDown,
  ready: async () => {
    // A write to every matching shard's hash slot and the webhook queue's, not a PING (shared/queue/readiness.ts).
    await Promise.all([pingDatabase(database.db), producer.probe(), probeQueueSlots(producerRedis, [webhookProducer.queue.toKey('readyz')])]);
  },
  metrics: metrics.exposition,
});
const address = health.address();
logger.info(
  { healthPort: typeof address === 'object' && address ? address.port : null, roles: [...config.WORKER_ROLES], concurrency: config.WORKER_CONCURRENCY, shards: matches ? consumedShards : [], cluster, workerId },
  'worker started',
);

async function shutdown(signal: string) {
  if (shuttingDown) return;
  shuttingDown = true;
  logger.info({ signal }, 'worker shutting down');
  const deadline = setTimeout(() => {
    // Jobs still running are retried elsewhere: their transactions never committed.
    logger.error('shutdown deadline passed; exiting with jobs in flight');
    process.exit(1);
  }, config.SHUTDOWN_TIMEOUT_MS);
  deadline.unref();
  await reconciler.stop();
  await partitionMaintenance.stop();
  await sweeper.stop();
  await backtestSweeper.stop();
  for (const backoff of backoffs) backoff.stop();
  // Wait for active jobs to finish (a backtest stops at its next page and resumes elsewhere from there).
  await Promise.all([...workers, ...webhookWorkers, ...backtestWorkers].map((worker) => worker.close()));
  sender.close();
  await lease.stop();
  await Promise.allSettled([producer.close(), webhookProducer.close(), backtestProducer.close(), database.close(), webhookDatabase.close(), backtestDatabase.close(), leaseDatabase.close()]);
  health.close();
  workerRedis.disconnect();
  producerRedis.disconnect();
  logger.info('worker stopped');
  process.exit(0);
}

process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
