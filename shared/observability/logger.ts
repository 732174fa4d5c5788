import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Paths that may carry a secret anywhere the service logs an object. pino
 * censors them before serialisation, so a secret never reaches a log line
 * even if a future log call passes a whole request or credential.
 */
export const REDACTED_PATHS = [
  'secret',
  '*.secret',
  'token',
  '*.token',
  'connection_token',
  '*.connection_token',
  'secretHash',
  '*.secretHash',
  'headers["x-api-secret"]',
  '*.headers["x-api-secret"]',
  'headers.authorization',
  '*.headers.authorization',
  'adminToken',
  'ADMIN_TOKEN',
  'LIVE_TOKEN_SECRET',
];

export function createLogger(options: { level: string; name: string }): Logger {
  return pino({
    name: options.name,
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { pid: process.pid, process: options.name },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
