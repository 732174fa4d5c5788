import { loadConfig } from '../shared/config.js';
import { migrateWithLock } from '../shared/db/migrate.js';
import { bufferedStdout, createLogger } from '../shared/observability/logger.js';
import { stopOnSignals } from '../shared/wiring/stop-on-signals.js';
import { startApi } from './start-api.js';

const config = loadConfig();
// Buffered: one write(2) per 8 KiB of lines, not per line (docs/performance.md); flushed on every exit path.
const logOutput = bufferedStdout();
const logger = createLogger({ level: config.LOG_LEVEL, name: 'api', destination: logOutput.stream });
if (config.MIGRATE_ON_START) await migrateWithLock(config.DATABASE_URL);
const api = await startApi(config, logger, logOutput);
stopOnSignals((signal) => api.stop(signal), {
  timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  logger,
  deadlineMessage: 'shutdown deadline passed; exiting',
  beforeExit: () => logOutput.flushSync(),
});
