import { exitOnConfigError, loadConfig } from '../shared/config.js';
import { migrateWithLock } from '../shared/db/migrate.js';
import { withDeploymentPartitions } from '../shared/queue/partition-count.js';
import { workerLogger } from '../shared/wiring/process-logger.js';
import { stopOnSignals } from '../shared/wiring/stop-on-signals.js';
import { startWorker } from './start-worker.js';

const loaded = loadConfig();
const logger = workerLogger(loaded);
// A WORKER_SHARDS pin past the count found exits here with its message, as a bad setting does in loadConfig.
const config = await withDeploymentPartitions(loaded, process.env, logger).catch(exitOnConfigError);
if (config.MIGRATE_ON_START) await migrateWithLock(config.DATABASE_URL);
const worker = await startWorker(config, logger);
// Jobs still running at the deadline are retried elsewhere: their transactions never committed.
stopOnSignals((signal) => worker.stop(signal), {
  timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  logger,
  deadlineMessage: 'shutdown deadline passed; exiting with jobs in flight',
});
