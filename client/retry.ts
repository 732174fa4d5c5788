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
  /** Called before each wait, e.g. to log; receives no request data, so nothing secret. */
  onRetry?: (info: { attempt: number; delayMs: number; status?: number; error?: string }) => void;
}

// The public interface asks to retry "the operation could not be completed";
// gateways in front of the service answer 502-504 for the same transient trouble.
// Every 4xx is the caller's to fix (or a business answer like 409): never retried.
const RETRYABLE_STATUSES = new Set([500, 502, 503, 504]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** "Full jitter": a uniformly random wait below an exponentially growing, capped ceiling. */
export function backoffDelay(retry: number, baseDelayMs: number, maxDelayMs: number, random = Math.random): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}

/**
 * Wraps fetch so that 5xx answers and network failures are retried with
 * bounded exponential backoff and full jitter. Safe here because every write
 * of this API is idempotent (registration returns the existing user, events
 * are deduplicated), so a retry after a lost answer does no harm.
 */
export function createRetryingFetch(options: RetryOptions = {}, fetchImpl: typeof fetch = globalThis.fetch) {
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? 4));
  const baseDelayMs = options.baseDelayMs ?? 200;
  const maxDelayMs = options.maxDelayMs ?? 5000;
  const timeoutMs = options.timeoutMs ?? 10_000;

  return async function retryingFetch(request: Request): Promise<Response> {
    // The body is read once so each attempt can send it again.
    const body = request.body ? await request.arrayBuffer() : undefined;
    const what = `${request.method} ${new URL(request.url).pathname}`;
    let lastError = '';
    for (let attempt = 1; ; attempt++) {
      let status: number | undefined;
      try {
        const response = await fetchImpl(
          new Request(request.url, { method: request.method, headers: request.headers, body, signal: AbortSignal.timeout(timeoutMs) }),
        );
        if (!RETRYABLE_STATUSES.has(response.status) || attempt >= maxAttempts) return response;
        status = response.status;
        await response.body?.cancel();
      } catch (error) {
        // Only the cause's own message: it names the address, never a header.
        lastError = error instanceof Error ? describeNetworkError(error) : String(error);
        if (attempt >= maxAttempts) {
          throw new QuestChainNetworkError(`${what} failed after ${attempt} attempt(s): ${lastError}`, attempt);
        }
      }
      const delayMs = backoffDelay(attempt, baseDelayMs, maxDelayMs);
      options.onRetry?.({ attempt, delayMs, ...(status === undefined ? { error: lastError } : { status }) });
      await sleep(delayMs);
    }
  };
}

/** undici hides the useful part ("ECONNREFUSED 127.0.0.1:9") in `cause`. */
function describeNetworkError(error: Error): string {
  if (error.name === 'TimeoutError') return 'timed out';
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error && cause.message ? `${error.message} (${cause.message})` : error.message;
}
