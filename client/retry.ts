import { QuestChainNetworkError } from './errors.js';

export interface RetryOptions {
  /** Total tries per call, the first included. Default 4. */
  maxAttempts?: number;
  /** Backoff cap of the first retry; doubles with every retry. Default 200 ms. */
  baseDelayMs?: number;
  /** Upper bound of any single wait. Default 5000 ms. */
  maxDelayMs?: number;
  /** Time allowed for one attempt before it counts as a network failure. Default 10000 ms. */
  timeoutMs?: number;
  /**
   * Longest `Retry-After` (429, 503) the client waits for; a longer one is not waited out: the call
   * fails at once with the answer's QuestChainApiError, whose `retryAfterMs` says when to come back. Default 30000 ms.
   */
  maxRetryAfterMs?: number;
  /** Called before each wait, e.g. to log; receives no request data, so nothing secret. */
  onRetry?: (info: RetryInfo) => void;
}

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  status?: number;
  error?: string;
  /** True when the wait is the server's `Retry-After`, not the client's own backoff. */
  retryAfter?: boolean;
}

// The public interface asks to retry "the operation could not be completed";
// gateways in front of the service answer 502-504 for the same transient trouble,
// and 429 asks to slow down. Every other 4xx is the caller's to fix (or a business
// answer like 409): never retried.
const RETRYABLE_STATUSES = new Set([429, 500, 502, 503, 504]);
// The statuses whose Retry-After header is the server's word on when to come back (RFC 9110 §10.2.3).
const RETRY_AFTER_STATUSES = new Set([429, 503]);

/** Waits, or rejects with the signal's reason as soon as it aborts (the caller's abort or the call's timeout). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * `Retry-After` in milliseconds: delay-seconds or an HTTP date (RFC 9110
 * §10.2.3); undefined when absent or unreadable, so the backoff applies.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date names its day and month ("Wed, 21 Oct 2015 07:28:00 GMT"); Date.parse alone would take "-3" for a year.
  const date = /[a-z]{3}/i.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** "Full jitter": a uniformly random wait below an exponentially growing, capped ceiling. */
export function backoffDelay(retry: number, baseDelayMs: number, maxDelayMs: number, random = Math.random): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}

/**
 * Wraps fetch so that 429, 5xx answers and network failures are retried with
 * bounded exponential backoff and full jitter, or after the server's
 * `Retry-After` on 429 and 503. Safe here because every write of this API is
 * idempotent (registration returns the existing user, events are
 * deduplicated), so a retry after a lost answer does no harm. The request's
 * own signal (the caller's AbortSignal and per-call timeout) ends everything,
 * waits included, and is never retried.
 */
export function createRetryingFetch(options: RetryOptions = {}, fetchImpl: typeof fetch = globalThis.fetch) {
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? 4));
  const baseDelayMs = options.baseDelayMs ?? 200;
  const maxDelayMs = options.maxDelayMs ?? 5000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;

  return async function retryingFetch(request: Request): Promise<Response> {
    const callSignal = request.signal;
    // The body is read once so each attempt can send it again.
    const body = request.body ? await request.arrayBuffer() : undefined;
    const what = `${request.method} ${new URL(request.url).pathname}`;
    let lastError = '';
    for (let attempt = 1; ; attempt++) {
      let status: number | undefined;
      let retryAfterMs: number | undefined;
      try {
        const response = await fetchImpl(
          new Request(request.url, {
            method: request.method,
            headers: request.headers,
            body,
            signal: AbortSignal.any([callSignal, AbortSignal.timeout(timeoutMs)]),
          }),
        );
        if (!RETRYABLE_STATUSES.has(response.status) || attempt >= maxAttempts) return response;
        if (RETRY_AFTER_STATUSES.has(response.status)) {
          retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
          // Asked to wait longer than this client will: the caller decides (the error carries retryAfterMs).
          if (retryAfterMs !== undefined && retryAfterMs > maxRetryAfterMs) return response;
        }
        status = response.status;
        await response.body?.cancel();
      } catch (error) {
        // The caller aborted or the call's own time ran out: that is the answer, not a failure to retry.
        if (callSignal.aborted) throw callSignal.reason;
        // Only the cause's own message: it names the address, never a header.
        lastError = error instanceof Error ? describeNetworkError(error) : String(error);
        if (attempt >= maxAttempts) {
          throw new QuestChainNetworkError(`${what} failed after ${attempt} attempt(s): ${lastError}`, attempt);
        }
      }
      const delayMs = retryAfterMs ?? backoffDelay(attempt, baseDelayMs, maxDelayMs);
      const reason =
        status === undefined ? { error: lastError } : { status, ...(retryAfterMs === undefined ? {} : { retryAfter: true }) };
      options.onRetry?.({ attempt, delayMs, ...reason });
      await sleep(delayMs, callSignal);
    }
  };
}

/** undici hides the useful part ("ECONNREFUSED 127.0.0.1:9") in `cause`. */
function describeNetworkError(error: Error): string {
  if (error.name === 'TimeoutError') return 'timed out';
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error && cause.message ? `${error.message} (${cause.message})` : error.message;
}
