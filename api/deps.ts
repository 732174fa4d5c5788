import { providersServingLive } from '../core/live/live-streams.js';
import type { Config } from '../shared/config.js';
import type { Database } from '../shared/db/client.js';
import { StandingsCache } from '../shared/leaderboards/standings-cache.js';
import { loadLiveTokenSigner } from '../shared/live/token.js';
import type { Logger } from '../shared/observability/logger.js';
import { createApiMetrics } from '../shared/observability/metrics.js';
import { connectionNameOf, createNodeConnection, createRedis } from '../shared/queue/connection.js';
import { openDatabase } from '../shared/wiring/databases.js';
import { openQueueProducers, openRedis } from '../shared/wiring/queues.js';
import type { AppDeps } from './app-env.js';
import { CredentialCache } from './auth/credential-cache.js';
import { createRateLimits } from './auth/rate-limits.js';
import { LiveHub } from './live/hub.js';
import { ActiveChainCache } from './read-cache/active-chain-cache.js';
import { createChangeFollowing } from './read-cache/change-notices.js';
import { LeaderboardCache } from './read-cache/leaderboard-cache.js';

/**
 * Opens everything a request handler may use, on top of an open database.
 * main.ts and the tests' app both build their dependencies here, so tests
 * run exactly the production wiring. `release` closes what this opened (not the
 * database; the read replica's pool, which it opens itself from DATABASE_READ_URL, yes).
 */
export async function createAppDeps(options: {
  config: Config;
  database: { db: Database };
  logger: Logger;
  isShuttingDown: () => boolean;
  /** Process-wide metrics (CPU, memory, event loop); off in tests, where many apps share a process. */
  defaultMetrics?: boolean;
}): Promise<{ deps: AppDeps; release: () => Promise<void> }> {
  const { config, database, logger } = options;
  // Reads that tolerate a replica's lag go to DATABASE_READ_URL when set (AppDeps.readDb).
  const readDatabase =
    config.DATABASE_READ_URL === undefined
      ? null
      : openDatabase(config, {
          url: config.DATABASE_READ_URL,
          poolSize: config.DB_POOL_SIZE,
          applicationName: 'qcr-api-read',
          budget: 'api',
        });
  const cluster = config.REDIS_CLUSTER;
  const queues = openQueueProducers(config, logger);
  const { redis, matching: producer, webhooks, backtests } = queues;
  const subscriber = openRedis(config, 'subscriber', logger);
  const liveHub = new LiveHub({
    redis: subscriber,
    queuePrefix: config.QUEUE_PREFIX,
    sharded: cluster,
    logger,
    caps: {
      perUser: config.LIVE_MAX_STREAMS_PER_USER,
      perPlatform: config.LIVE_MAX_STREAMS_PER_PLATFORM,
      perProcess: config.LIVE_MAX_STREAMS,
    },
    providersServingLive: (providerIds) => providersServingLive({ db: database.db }, { providerIds }),
  });
  // Behind a read replica, an answer read during the replica's lag would outlive the notice that should have
  // replaced it: there, answers keep the definitions' short lifetime (docs/operations.md, "Conditional reads").
  const answerTtlMs = readDatabase ? Math.min(config.ANSWER_CACHE_TTL_MS, config.CHAIN_CACHE_TTL_MS) : config.ANSWER_CACHE_TTL_MS;
  const chainCache = new ActiveChainCache(database.db, config.CHAIN_CACHE_TTL_MS, { ttlMs: answerTtlMs });
  // Shows in CLIENT LIST, so an operator (or a test) can tell the notice subscriptions apart.
  const noticesConnection = connectionNameOf(`${config.QUEUE_PREFIX}:notices`);
  const changeFollowing = createChangeFollowing({
    redis,
    // A connection of its own (one Redis) or per master (a cluster): its subscriptions are proved by probes.
    connect: (node) =>
      node
        ? createNodeConnection(config.REDIS_URL, node, { logger, connectionName: noticesConnection })
        : createRedis(config.REDIS_URL, 'subscriber', { logger, name: 'notices', connectionName: noticesConnection }),
    prefix: config.QUEUE_PREFIX,
    sharded: cluster,
    probeIntervalMs: config.NOTICE_PROBE_MS,
    chainCache,
    logger,
  });
  changeFollowing.follow();
  const rateLimits = createRateLimits({ redis, config, logger });
  const metrics = createApiMetrics({
    queue: producer,
    enqueueFailures: () => producer.failedJobs,
    liveStreams: () => liveHub.size.streams,
    noticesServing: () => changeFollowing.serving,
    redis: { producer: redis, subscriber },
    defaultMetrics: options.defaultMetrics ?? false,
  });
  const deps: AppDeps = {
    config,
    db: database.db,
    readDb: readDatabase?.db ?? database.db,
    redis,
    producer,
    webhooks,
    backtests,
    credentials: new CredentialCache(database.db, config.CREDENTIAL_CACHE_TTL_MS),
    liveTokens: await loadLiveTokenSigner(database.db, config.LIVE_TOKEN_SECRET),
    liveHub,
    chainCache,
    changes: changeFollowing.changes,
    standings: new StandingsCache(redis, config.QUEUE_PREFIX),
    leaderboards: new LeaderboardCache(database.db, config.CHAIN_CACHE_TTL_MS),
    logger,
    isShuttingDown: options.isShuttingDown,
    metrics,
    rateLimits,
  };
  return {
    deps,
    async release() {
      changeFollowing.close();
      await liveHub.close();
      rateLimits.close();
      await queues.close();
      await readDatabase?.close();
    },
  };
}
