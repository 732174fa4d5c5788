import pino, { type DestinationStream, type Logger } from 'pino';
import { withoutQueryParams } from '../db/query-errors.js';

export type { Logger };

/**
 * Paths that may carry a secret anywhere the service logs an object. pino
 * censors them before serialisation, so a secret never reaches a log line
 * even if a future log call passes a whole request or credential.
 */
const REDACTED_PATHS = [
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

// pino's isoTime formats a new Date for every line; under load many lines share a millisecond.
let lastMs = 0;
let lastTime = '';
export function isoTimeOncePerMillisecond(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
}

// Named, so the declaration does not name sonic-boom's types by path (which breaks a build through a linked node_modules).
export interface BufferedStdout {
  stream: ReturnType<typeof pino.destination>;
  flush(): void;
  flushSync(): void;
}

/**
 * stdout through a buffer written asynchronously: many lines cost one
 * write(2) instead of one each (the API's request path stays cheap). Lines
 * reach stdout when 8 KiB have gathered, at the latest every `flushEveryMs`,
 * and at once on `flush()`/`flushSync()`; `flushSync()` is for shutdown
 * (pino also flushes such a destination on process exit). `maxLength` bounds
 * the memory a stalled stdout can pin: past it, lines are dropped.
 */
export function bufferedStdout(options: { flushEveryMs?: number } = {}): BufferedStdout {
  const stream = pino.destination({ dest: 1, sync: false, minLength: 8 * 1024, maxLength: 64 * 1024 * 1024 });
  const timer = setInterval(() => stream.flush(), options.flushEveryMs ?? 200);
  timer.unref();
  return {
    stream,
    flush: () => stream.flush(),
    flushSync() {
      clearInterval(timer);
      try {
        stream.flushSync();
      } catch {
        // not open yet or already closed: nothing of ours is left to write
      }
    },
  };
}

/** JSON lines on stdout (or `destination`, which tests use to read what would be printed). */
export function createLogger(options: { level: string; name: string; destination?: DestinationStream }): Logger {
  const settings = {
    name: options.name,
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { err: (error: unknown) => pino.stdSerializers.err(withoutQueryParams(error) as Error) },
    base: { pid: process.pid, process: options.name },
    timestamp: isoTimeOncePerMillisecond,
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
