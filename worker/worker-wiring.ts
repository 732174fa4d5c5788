import type { Config } from '../shared/config.js';
import { pendingEventsBacklog } from '../shared/db/event-store.js';
import { StandingsCache } from '../shared/leaderboards/standings-cache.js';
import { createChangePublisher } from '../shared/live/change-publisher.js';
import type { Logger } from '../shared/observability/logger.js';
import { createWorkerMetrics, PENDING_COUNT_CAP } from '../shared/observability/metrics.js';
import { AUTO_CLAIM_CONCURRENCY } from '../shared/queue/auto-claim-contract.js';
import { openDatabase } from '../shared/wiring/databases.js';
import { openQueueProducers, openRedis } from '../shared/wiring/queues.js';
import { workerApplicationName } from './lease.js';
import { createLivePublisher } from './live-publisher.js';
import type { WorkerDeps } from './worker-deps.js';

/**
 * The connections of one worker process, from its config: a pool per kind of
 * work (so no kind queues behind another), the consumers' Redis connection,
 * the producers and the metrics. `close` closes every one of them.
 */
export function openWorkerWiring(config: Config, logger: Logger, workerId: string) {
  // Names this process's sessions (application_name), so another worker can end them if its lease lapses (lease.ts).
  const pool = (poolSize: number) =>
    openDatabase(config, { applicationName: workerApplicationName(workerId), poolSize, budget: 'worker' });
  // A connection per batch in flight (worker/matching/batcher.ts), plus the reconciler's and /readyz's.
  const database = pool(config.MATCH_BATCHES_IN_FLIGHT + 2);
  // Webhook deliveries' own connections: a burst of them never queues ahead of a matching batch.
  const webhookDatabase = pool(3);
  // Backtests' own connection: a long backtest never queues ahead of a matching batch.
  const backtestDatabase = pool(1);
  // Auto-claims' own connections (one per claim in flight): a claim waiting on a chain's budget row never holds a batch's.
  const autoClaimDatabase = pool(AUTO_CLAIM_CONCURRENCY);
  // The leaderboards' sweeper's own connection: finalizing a large board's period never waits behind a backtest.
  const leaderboardDatabase = pool(1);
  // The lease's own connection: its heartbeat never queues behind batches waiting for locks.
  const leaseDatabase = pool(1);
  const consumerRedis = openRedis(config, 'worker', logger);
  // The partition leases' own connection, failing fast like a producer's: a renewal never queues behind
  // enqueues or live messages, and one that cannot be sent fails at once instead of waiting for a reconnect.
  const leaseRedis = openRedis(config, 'producer', logger, 'leases');
  // The matcher enqueues webhook first attempts whatever the roles: the queue is what another process delivers from.
  const queues = openQueueProducers(config, logger);
  const metrics = createWorkerMetrics({
    defaultMetrics: true,
    queue: queues.matching,
    enqueueFailures: () => queues.matching.failedJobs,
    redis: { worker: consumerRedis, producer: queues.redis, leases: leaseRedis },
    // Sampled (every 5 s at most) and capped: a scrape never costs a full count of a large backlog.
    pendingEvents: () => pendingEventsBacklog(database.db, PENDING_COUNT_CAP),
  });
  const deps: WorkerDeps = {
    db: database.db,
    producer: queues.matching,
    logger,
    publish: createLivePublisher(queues.redis, config.QUEUE_PREFIX, logger, config.REDIS_CLUSTER),
    standings: new StandingsCache(queues.redis, config.QUEUE_PREFIX),
  };
  // What an auto-claim changed (a user's answer), told to the API processes (§18.5).
  const changes = createChangePublisher({
    redis: queues.redis,
    prefix: config.QUEUE_PREFIX,
    sharded: config.REDIS_CLUSTER,
    logger,
  });
  return {
    deps,
    changes,
    databases: {
      matching: database.db,
      webhooks: webhookDatabase.db,
      backtests: backtestDatabase.db,
      autoClaims: autoClaimDatabase.db,
      leaderboards: leaderboardDatabase.db,
      lease: leaseDatabase.db,
    },
    consumerRedis,
    leaseRedis,
    queues,
    metrics,
    async close() {
      await Promise.allSettled([
        queues.close(),
        database.close(),
        webhookDatabase.close(),
        backtestDatabase.close(),
        autoClaimDatabase.close(),
        leaderboardDatabase.close(),
        leaseDatabase.close(),
      ]);
      consumerRedis.disconnect();
      leaseRedis.disconnect();
    },
  };
}

export type WorkerWiring = ReturnType<typeof openWorkerWiring>;
