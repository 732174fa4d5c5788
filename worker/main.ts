import { loadConfig } from '../shared/config.js';
import { migrateWithLock } from '../shared/db/migrate.js';
import { workerLogger } from '../shared/wiring/process-logger.js';
import { stopOnSignals } from '../shared/wiring/stop-on-signals.js';
import { startWorker } from './start-worker.js';

const config = loadConfig();
const logger = workerLogger(config);
if (config.MIGRATE_ON_START) await migrateWithLock(config.DATABASE_URL);
const worker = await startWorker(config, logger);
// Jobs still running at the deadline are retried elsewhere: their transactions never committed.
stopOnSignals((signal) => worker.stop(signal), {
  timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  logger,
  deadlineMessage: 'shutdown deadline passed; exiting with jobs in flight',
});
