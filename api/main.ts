import { serve } from '@hono/node-server';
import { loadConfig } from '../shared/config.js';
import { createDatabase } from '../shared/db/client.js';
import { migrateWithLock } from '../shared/db/migrate.js';
import { bufferedStdout, createLogger } from '../shared/observability/logger.js';
import { createApp } from './app.js';
import { createAppDeps } from './deps.js';
import { startMetricsServer } from './operator/metrics.js';

const config = loadConfig();
// Buffered: one write(2) per 8 KiB of lines, not per line (docs/performance.md); flushed on every exit path below.
const logOutput = bufferedStdout();
const logger = createLogger({ level: config.LOG_LEVEL, name: 'api', destination: logOutput.stream });

if (config.MIGRATE_ON_START) await migrateWithLock(config.DATABASE_URL);

const database = createDatabase({
  url: config.DATABASE_URL,
  poolSize: config.DB_POOL_SIZE,
  applicationName: 'qcr-api',
  timeouts: { statementMs: config.API_STATEMENT_TIMEOUT_MS, lockMs: config.DB_LOCK_TIMEOUT_MS, idleInTransactionMs: config.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS },
});
let shuttingDown = false;
const { deps, release } = await createAppDeps({
  config,
  database,
  logger,
  isShuttingDown: () => shuttingDown,
  defaultMetrics: true,
});
const app = createApp(deps);

// The internal Prometheus listener (docs/operations.md); without METRICS_PORT, /metrics is on PORT behind the admin token.
const metricsServer =
  config.METRICS_PORT === undefined ? null : await startMetricsServer(deps.metrics, { port: config.METRICS_PORT, host: config.HOST });
const server = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST }, (info) => {
  logger.info({ port: info.port }, 'api listening');
  // Supervisors and tests wait for this line: do not leave it in the buffer.
  logOutput.flush();
});

async function shutdown(signal: string) {
  if (shuttingDown) return;
  shuttingDown = true;
  logger.info({ signal }, 'api shutting down');
  const deadline = setTimeout(() => {
    logger.error('shutdown deadline passed; exiting');
    logOutput.flushSync();
    process.exit(1);
  }, config.SHUTDOWN_TIMEOUT_MS);
  deadline.unref();
  // Open live streams never finish on their own and would hold server.close until the deadline: end them first.
  await deps.liveHub.close();
  // Stop accepting, let in-flight requests finish, then release connections.
  await new Promise<void>((resolve) => server.close(() => resolve()));
  metricsServer?.close();
  await Promise.allSettled([release(), database.close()]);
  logger.info('api stopped');
  logOutput.flushSync();
  process.exit(0);
}

process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
