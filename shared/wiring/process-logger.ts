import pino from 'pino';
import type { Config } from '../config.js';
import { type BufferedStdout, bufferedStdout, createLogger, type Logger } from '../observability/logger.js';

// The loggers of the long-running processes, at LOG_LEVEL, named after their kind.

/**
 * The API's: lines go through a buffer, one write(2) per 8 KiB rather than per
 * line (docs/performance.md); the caller flushes `output` on every exit path.
 */
export function apiLogger(config: Config): { logger: Logger; output: BufferedStdout } {
  const output = bufferedStdout();
  return { logger: createLogger({ level: config.LOG_LEVEL, name: 'api', destination: output.stream }), output };
}

/**
 * The worker's: synchronous writes. When a worker dies its last lines are the
 * ones that matter, and a job's cost is its database round trips, not one write.
 */
export function workerLogger(config: Config): Logger {
  return createLogger({ level: config.LOG_LEVEL, name: 'worker', destination: pino.destination({ dest: 1, sync: true }) });
}
