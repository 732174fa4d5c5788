import pino from 'pino';
import { loadConfig } from '../shared/config.js';
import { migrateWithLock } from '../shared/db/migrate.js';
import { createLogger } from '../shared/observability/logger.js';
import { stopOnSignals } from '../shared/wiring/stop-on-signals.js';
import { startWorker } from './start-worker.js';

const config = loadConfig();
// Synchronous writes: when a worker dies, its last lines are the ones that matter, and a
// job's cost is its database round trips, not one write to stdout.
const logger = createLogger({ level: config.LOG_LEVEL, name: 'worker', destination: pino.destination({ dest: 1, sync: true }) });
if (config.MIGRATE_ON_START) await migrateWithLock(config.DATABASE_URL);
const worker = await startWorker(config, logger);
// Jobs still running at the deadline are retried elsewhere: their transactions never committed.
stopOnSignals((signal) => worker.stop(signal), { timeoutMs: config.SHUTDOWN_TIMEOUT_MS, logger, deadlineMessage: 'shutdown deadline passed; exiting with jobs in flight' });
