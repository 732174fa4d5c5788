/**
 * What the service does about losing Postgres (a restart, a failover, a
 * network cut): requests answer "unavailable, retry" (api/http/errors.ts)
 * and the pool reconnects by itself, quickly, once the server is back.
 */

/**
 * Seconds before a closed pool connection reconnects (postgres.js' `backoff`,
 * called with the pool's count of failed connects). The driver's default grows
 * 3^n up to 20 s, so after an outage of a few seconds the pool would stay down
 * for up to 20 s after Postgres is back; capped at 1 s, it resumes within about a
 * second, at the price of one connect attempt per second per idle connection.
 */
export const reconnectDelaySeconds = (failedConnects: number) => Math.min(0.05 * 2 ** failedConnects, 1);

/**
 * Whether an error means Postgres could not be reached or went away (a
 * restart, a failover, a network cut) rather than that a statement was
 * wrong. Callers answer "unavailable, retry" for these instead of a 500:
 * the pool reconnects by itself once the server is back.
 */
export function isConnectionError(error: unknown): boolean {
  // drizzle wraps the driver's error (DrizzleQueryError.cause); look a few causes deep.
  for (let current = error, depth = 0; current && depth < 5; current = causeOf(current), depth += 1) {
    const code = codeOf(current);
    if (code && (DRIVER_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08'))) return true;
  }
  return false;
}

// postgres.js' own connection errors, and the socket errors it passes through.
const DRIVER_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// SQLSTATEs of a server going away or not yet back (class 08, connection_exception, is matched by
// prefix): admin_shutdown (fast stop), crash_shutdown (immediate stop, a crashed backend),
// cannot_connect_now (starting up or shutting down).
const SERVER_CODES = new Set(['57P01', '57P02', '57P03']);

/**
 * The code (a SQLSTATE, or a driver/socket code) of a failed statement: on
 * the error itself, or on its cause when drizzle wrapped the driver's error.
 */
export function sqlStateOf(error: unknown): string | undefined {
  return codeOf(error) ?? codeOf(causeOf(error));
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

function causeOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'cause' in error ? error.cause : undefined;
}
