import type { Context } from 'hono';
import { AppError } from '../http/errors.js';

/** One published limit: at most `quota` requests per `windowS` seconds, under a policy name. */
export interface RateLimitPolicy {
  name: string;
  quota: number;
  windowS: number;
}

/** Where a caller stands under a policy after this request. */
export interface RateLimitState {
  remaining: number;
  /** Milliseconds until the window resets (or the block ends). */
  resetMs: number;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * The IETF RateLimit header fields, draft-ietf-httpapi-ratelimit-headers-11
 * syntax (policy names are quoted strings): `RateLimit-Policy: "name";q=..;w=..`
 * and `RateLimit: "name";r=..;t=..`.
 */
export function setRateLimitHeaders(c: Context, policy: RateLimitPolicy, state: RateLimitState): void {
  c.header('RateLimit-Policy', `"${policy.name}";q=${policy.quota};w=${policy.windowS}`);
  c.header('RateLimit', `"${policy.name}";r=${Math.max(0, Math.floor(state.remaining))};t=${seconds(state.resetMs)}`);
}

/** The 429 to throw: Retry-After and the RateLimit fields on the response, the envelope from the error handler. */
export function rateLimited(c: Context, policy: RateLimitPolicy, retryAfterMs: number, what: string): AppError {
  setRateLimitHeaders(c, policy, { remaining: 0, resetMs: retryAfterMs });
  c.header('Retry-After', String(seconds(retryAfterMs)));
  return new AppError(
    'rate_limited',
    `Too many ${what}: at most ${policy.quota} per ${policy.windowS} s; retry after ${seconds(retryAfterMs)} s`,
  );
}
