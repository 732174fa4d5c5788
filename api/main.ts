import { serve } from '@hono/node-server';
import { loadConfig } from '../shared/config.js';
import { createDatabase } from '../shared/db/client.js';
import { migrateWithLock } from '../shared/db/migrate.js';
import { loadLiveTokenSigner } from '../shared/live/token.js';
import { createLogger } from '../shared/observability/logger.js';
import { createApiMetrics } from '../shared/observability/metrics.js';
import { createRedis } from '../shared/queue/connection.js';
import { createMatchingProducer } from '../shared/queue/producer.js';
import { ActiveChainCache } from '../shared/services/quest-chains/active-chain-cache.js';
import { createApp } from './app.js';
import { CredentialStore } from './auth/credential-store.js';
import { LiveHub } from './live/hub.js';

const config = loadConfig();
const logger = createLogger({ level: config.LOG_LEVEL, name: 'api' });

if (config.MIGRATE_ON_START) await migrateWithLock(config.DATABASE_URL);

const database = createDatabase({ url: config.DATABASE_URL, poolSize: config.DB_POOL_SIZE, applicationName: 'qcr-api' });
const redis = createRedis(config.REDIS_URL, 'producer');
const producer = createMatchingProducer(redis, config.QUEUE_PREFIX);
const liveHub = new LiveHub({ redis: createRedis(config.REDIS_URL, 'subscriber'), queuePrefix: config.QUEUE_PREFIX, logger });
const metrics = createApiMetrics({ queue: producer.queue, defaultMetrics: true });
let shuttingDown = false;

const app = createApp({
  config,
  db: database.db,
  sql: database.sql,
  redis,
  producer,
  credentials: new CredentialStore(database.db, config.CREDENTIAL_CACHE_TTL_MS),
  liveTokens: await loadLiveTokenSigner(database.db, config.LIVE_TOKEN_SECRET),
  liveHub,
  chainCache: new ActiveChainCache(database.db, config.CHAIN_CACHE_TTL_MS),
  logger,
  isShuttingDown: () => shuttingDown,
  metrics,
  onRequestFinished: metrics.observeRequest,
});

const server = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST }, (info) => {
  logger.info({ port: info.port }, 'api listening');
});

async function shutdown(signal: string) {
  if (shuttingDown) return;
  shuttingDown = true;
  logger.info({ signal }, 'api shutting down');
  const deadline = setTimeout(() => {
    logger.error('shutdown deadline passed; exiting');
    process.exit(1);
  }, config.SHUTDOWN_TIMEOUT_MS);
  deadline.unref();
  // Open live streams never finish on their own and would hold server.close until the deadline: end them first.
  await liveHub.close();
  // Stop accepting, let in-flight requests finish, then release connections.
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await Promise.allSettled([producer.close(), database.close()]);
  redis.disconnect();
  logger.info('api stopped');
  process.exit(0);
}

process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
