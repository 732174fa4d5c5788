import { DrizzleQueryError } from 'drizzle-orm';
import { sqlStateOf } from './connection-loss.js';

/**
 * drizzle wraps a failed statement's error with the statement and its
 * parameters in the message. Parameters are user data (event metadata, token
 * hashes): they must not reach logs or a failed job's stored reason. This keeps
 * the statement text and the driver's error (code, detail) as the cause.
 */
export function withoutQueryParams(error: unknown): unknown {
  if (!(error instanceof DrizzleQueryError)) return error;
  const cause = error.cause instanceof Error ? error.cause : undefined;
  const stripped = new Error(`${cause?.message ?? 'query failed'} (in: ${error.query.replace(/\s+/g, ' ').slice(0, 200)})`, {
    cause,
  });
  stripped.name = 'DatabaseError';
  // The original stack begins with the message (parameters included): keep only its frames.
  const frames = (error.stack ?? '').split('\n').filter((line) => line.startsWith('    at '));
  stripped.stack = [`${stripped.name}: ${stripped.message}`, ...frames].join('\n');
  return stripped;
}

// SQLSTATEs of the session time limits (shared/db/client.ts): statement_timeout (query_canceled),
// lock_timeout (lock_not_available) and idle_in_transaction_session_timeout.
const TIME_LIMIT_CODES = new Set(['57014', '55P03', '25P03']);

/** Whether a failed statement was stopped by one of the session's time limits: the caller may retry, it is not a bug. */
export function isTimeLimitError(error: unknown): boolean {
  const code = sqlStateOf(error);
  return code !== undefined && TIME_LIMIT_CODES.has(code);
}
