import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Config } from '../shared/config.js';
import { pingDatabase } from '../shared/db/ping.js';
import { autovacuumIsOn } from '../shared/db/server-admin.js';
import type { Logger } from '../shared/observability/logger.js';
import { checkPartitionCount } from '../shared/queue/partition-count.js';
import { partitionLeaseStore, type WorkerInfo } from '../shared/queue/partition-lease-store.js';
import { probeQueueSlots } from '../shared/queue/readiness.js';
import { startAutoClaimSweeper } from './auto-claims/sweeper.js';
import { startBacktestSweeper } from './backtests/sweeper.js';
import { startConsumers } from './consumers.js';
import { startHealthServer } from './health-server.js';
import { startLeaderboardSweeper } from './leaderboards/sweeper.js';
import { startLease } from './lease.js';
import { startMonthTableMaintenance } from './month-table-maintenance.js';
import { startPartitionLeases } from './partition-leases.js';
import { startReconciler } from './reconciler.js';
import { createSender } from './webhooks/send.js';
import { startSweeper } from './webhooks/sweeper.js';
import { openWorkerWiring } from './worker-wiring.js';

/** A running worker process's work; `stop` drains it and closes every connection (it does not exit). */
export interface RunningWorker {
  workerId: string;
  /** The port /healthz, /readyz and /metrics answer on (WORKER_HEALTH_PORT, or the one picked for 0). */
  healthPort: number | null;
  stop(signal: string): Promise<void>;
}

const idle = { stop: async () => {} };

/** The warning a matching worker logs at start on a server without autovacuum. */
export const AUTOVACUUM_OFF =
  'autovacuum is off on this Postgres: run ANALYZE as users, chain_progress and task_completions grow, or the planner scans all of users for every matching batch (docs/operations.md, "Planner statistics: keep autovacuum on")';

/**
 * Everything a worker does, from its config: the lease, the matching
 * consumers with the reconciler, partition maintenance, backtests and
 * auto-claims (role `matching`), webhook deliveries with their sweeper (role `webhooks`), and
 * the health server. worker/main.ts runs it until a signal.
 */
export async function startWorker(config: Config, logger: Logger): Promise<RunningWorker> {
  const workerId = randomUUID();
  const wiring = openWorkerWiring(config, logger, workerId);
  const { deps, databases, queues, metrics } = wiring;
  let shuttingDown = false;
  // WORKER_ROLES: matching (and what goes with it) and webhook delivery, both by default; a process
  // with one role leaves the other to processes started with it (docs/scaling.md, "Webhook delivery").
  const matches = config.WORKER_ROLES.has('matching');
  const delivers = config.WORKER_ROLES.has('webhooks');
  // A count other than the deployment's stops the process here (or once Redis answers).
  await checkPartitionCount({ redis: queues.redis, layout: queues.layout, logger, exit: (code) => process.exit(code) });
  // The worker this one replaces (a crash, a restart) may have committed a batch and died before announcing
  // it: every API drops its cached answers. Not awaited; a notice not sent is logged (change-publisher.ts).
  if (matches) void wiring.changes.allAnswersChanged();

  const sender = createSender({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE });
  const sweeper = delivers
    ? startSweeper(
        { db: databases.webhooks, logger, webhooks: queues.webhooks },
        { intervalMs: config.RECONCILE_INTERVAL_MS, minAgeMs: config.RECONCILE_MIN_AGE_MS },
      )
    : idle;
  // Backtests (§12) on a queue of their own, one at a time per worker; the sweeper queues again any running one without a job.
  const backtestSweeper = matches
    ? startBacktestSweeper(
        { db: databases.backtests, logger, backtests: queues.backtests },
        { intervalMs: config.RECONCILE_INTERVAL_MS },
      )
    : idle;
  // Auto-claims (§18.5) whose job was lost, failed or ran before their reward hold ended are queued again.
  const autoClaimSweeper = matches
    ? startAutoClaimSweeper(
        { db: databases.autoClaims, logger, autoClaims: queues.autoClaims },
        { intervalMs: config.RECONCILE_INTERVAL_MS, minAgeMs: config.RECONCILE_MIN_AGE_MS },
      )
    : idle;
  // Leaderboards (§19): refreshes left queued, open periods Redis lost, and periods to finalize with their
  // leaderboard.finalized facts.
  const leaderboardSweeper = matches
    ? startLeaderboardSweeper(
        { db: databases.leaderboards, standings: deps.standings, config, logger, webhooks: queues.webhooks },
        { intervalMs: config.RECONCILE_INTERVAL_MS },
      )
    : idle;
  const reconciler = matches
    ? startReconciler(deps, {
        intervalMs: config.RECONCILE_INTERVAL_MS,
        minAgeMs: config.RECONCILE_MIN_AGE_MS,
        onPass: (counts) => metrics.reconciled(counts),
      })
    : { ...idle, runNow: async () => {} };
  // The coming months' partitions of events, and retention (EVENT_RETENTION_MONTHS): now, then hourly.
  const partitionMaintenance = matches
    ? startMonthTableMaintenance(deps, { retentionMonths: config.EVENT_RETENTION_MONTHS })
    : idle;
  const lease = startLease(
    {
      db: databases.lease,
      logger,
      // The ended worker's claimed events were received before it stopped, at least a lease ago: put
      // them back now rather than after RECONCILE_MIN_AGE_MS and the next interval.
      // The ended worker may have committed a batch and died before announcing it: the APIs drop every answer.
      onTakeover: () =>
        Promise.all([
          reconciler.runNow(Math.max(0, config.WORKER_LEASE_MS - config.WORKER_HEARTBEAT_MS), { ignoreQueueLag: true }),
          wiring.changes.allAnswersChanged(),
        ]),
    },
    { workerId, leaseMs: config.WORKER_LEASE_MS, heartbeatMs: config.WORKER_HEARTBEAT_MS },
  );
  // The matcher's lookups by id list need the planner's statistics; say so once when nothing keeps them.
  if (matches)
    void autovacuumIsOn(databases.matching)
      .then((on) => on || logger.warn(AUTOVACUUM_OFF))
      .catch(() => undefined);
  // Not fatal if Postgres is away now: the heartbeat renews it once it answers.
  await lease
    .start()
    .catch((error: unknown) => logger.warn({ err: error }, 'could not take the first lease; the heartbeat retries'));

  const consumers = startConsumers(config, wiring, { matches, delivers, sender, isShuttingDown: () => shuttingDown });
  // The matching partitions this worker consumes: its share, by lease, or its pins (WORKER_SHARDS).
  const pins = config.WORKER_SHARDS ?? null;
  const info: WorkerInfo = { host: hostname(), pid: process.pid, pins, healthPort: null, startedAt: new Date().toISOString() };
  const partitionLeases = matches
    ? startPartitionLeases(
        {
          store: partitionLeaseStore(wiring.leaseRedis, queues.layout),
          logger,
          consumption: consumers.partitions.consumption,
          onChange: (change) => metrics.partitionChanged(change),
        },
        { workerId, partitions: queues.layout.partitions, leaseMs: config.PARTITION_LEASE_MS, pins, info },
      )
    : null;
  if (partitionLeases) metrics.partitionsFrom(partitionLeases.held);
  const health = await startHealthServer({
    port: config.WORKER_HEALTH_PORT,
    host: config.HOST,
    isShuttingDown: () => shuttingDown,
    ready: async () => {
      // A write to every matching shard's hash slot and the webhook queue's, not a PING (shared/queue/readiness.ts).
      await Promise.all([
        pingDatabase(databases.matching),
        queues.matching.probe(),
        probeQueueSlots(queues.redis, [queues.webhooks.queue.toKey('readyz')]),
      ]);
    },
    metrics: metrics.exposition,
  });
  const address = health.address();
  const healthPort = typeof address === 'object' && address ? address.port : null;
  info.healthPort = healthPort;
  // Its share taken (or the first try at it made) before it says it started.
  await partitionLeases?.start();
  logger.info(
    {
      healthPort,
      roles: [...config.WORKER_ROLES],
      concurrency: config.WORKER_CONCURRENCY,
      partitions: partitionLeases?.held().map((held) => held.partition) ?? [],
      pinned: pins !== null,
      cluster: config.REDIS_CLUSTER,
      workerId,
    },
    'worker started',
  );

  return {
    workerId,
    healthPort,
    async stop(signal) {
      if (shuttingDown) return;
      shuttingDown = true;
      logger.info({ signal }, 'worker shutting down');
      await reconciler.stop();
      await partitionMaintenance.stop();
      await sweeper.stop();
      await backtestSweeper.stop();
      await autoClaimSweeper.stop();
      await leaderboardSweeper.stop();
      // Leaves the worker registry, stops its partitions, waits for their jobs in flight, then releases the leases.
      await partitionLeases?.stop();
      // Wait for active jobs to finish (a backtest stops at its next page and resumes elsewhere from there).
      await consumers.close();
      sender.close();
      await lease.stop();
      await wiring.close();
      health.close();
      logger.info('worker stopped');
    },
  };
}
