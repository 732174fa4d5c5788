import pino, { type DestinationStream, type Logger } from 'pino';

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
  'authorization',
  '*.authorization',
  'apiSecret',
  '*.apiSecret',
  'password',
  '*.password',
  'adminToken',
  '*.adminToken',
  'ADMIN_TOKEN',
  '*.ADMIN_TOKEN',
  'LIVE_TOKEN_SECRET',
  '*.LIVE_TOKEN_SECRET',
];

/** JSON lines on stdout (or `destination`, which tests use to read what would be printed). */
export function createLogger(options: { level: string; name: string; destination?: DestinationStream }): Logger {
  const settings = {
    name: options.name,
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { pid: process.pid, process: options.name },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
