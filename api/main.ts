import { exitOnConfigError, loadConfig } from '../shared/config.js';
import { migrateWithLock } from '../shared/db/migrate.js';
import { withDeploymentPartitions } from '../shared/queue/partition-count.js';
import { apiLogger } from '../shared/wiring/process-logger.js';
import { stopOnSignals } from '../shared/wiring/stop-on-signals.js';
import { startApi } from './start-api.js';

const loaded = loadConfig();
const { logger, output } = apiLogger(loaded);
// A WORKER_SHARDS pin past the count found exits here with its message, as a bad setting does in loadConfig.
const config = await withDeploymentPartitions(loaded, process.env, logger).catch(exitOnConfigError);
if (config.MIGRATE_ON_START) await migrateWithLock(config.DATABASE_URL);
const api = await startApi(config, logger, output);
stopOnSignals((signal) => api.stop(signal), {
  timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  logger,
  deadlineMessage: 'shutdown deadline passed; exiting',
  // What the buffer still holds is written before the process exits.
  beforeExit: () => output.flushSync(),
});
