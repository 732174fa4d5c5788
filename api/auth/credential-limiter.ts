import type { Context } from 'hono';
import { LRUCache } from 'lru-cache';
import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from '../../shared/observability/logger.js';
import type { AppError } from '../http/errors.js';
import { type RateLimitPolicy, rateLimited, setRateLimitHeaders } from './rate-limit-policy.js';

/** How often requests counted locally are added to the shared count. */
const FLUSH_MS = 100;
// Below this share of the quota left, every request asks Redis itself (exact near the limit).
const EXACT_BELOW = 0.05;
// Send the RateLimit fields on successful answers once this share of the quota is used (draft §6.2).
const ADVERTISE_ABOVE = 0.9;

interface KeyState {
  /** Remaining quota as Redis last said, before `pending`. */
  remaining: number;
  resetAt: number;
  blockedUntil: number;
  /** Requests let through here and not yet added to the shared count. */
  pending: number;
}

/**
 * Requests per credential per window, shared by every API replica through
 * Redis, without a Redis round trip per request: far from the limit, a
 * request is counted here and the count is added to Redis every FLUSH_MS in
 * one call per credential; near it (under 5 % left), or when nothing is known
 * yet, the request waits for Redis itself. So the limit holds exactly within
 * one process, and across N replicas may be passed by at most what the
 * others let through in one flush interval. A blocked credential is refused
 * here with no I/O until its window ends.
 */
export class CredentialLimiter {
  private readonly states = new LRUCache<string, KeyState>({ max: 100_000 });
  private readonly margin: number;
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly policy: RateLimitPolicy,
    private readonly limiter: RateLimiterAbstract,
    private readonly logger: Logger,
  ) {
    this.margin = Math.max(1, Math.floor(policy.quota * EXACT_BELOW));
  }

  /** The 429 to answer for this request, or null to go on. Synchronous unless Redis must be asked. */
  admit(c: Context, key: string): AppError | null | Promise<AppError | null> {
    const now = Date.now();
    const state = this.states.get(key);
    if (state && state.blockedUntil > now)
      return rateLimited(c, this.policy, state.blockedUntil - now, 'requests for this credential');
    if (state && state.resetAt > now && state.remaining - state.pending > this.margin) {
      state.pending += 1;
      this.scheduleFlush();
      const remaining = state.remaining - state.pending;
      if (remaining < this.policy.quota * (1 - ADVERTISE_ABOVE))
        setRateLimitHeaders(c, this.policy, { remaining, resetMs: state.resetAt - now });
      return null;
    }
    return this.consumeNow(c, key, state);
  }

  private async consumeNow(c: Context, key: string, state: KeyState | undefined): Promise<AppError | null> {
    const points = 1 + (state?.pending ?? 0);
    if (state) state.pending = 0;
    const outcome = await this.consume(key, points);
    if (!outcome) return null;
    if (outcome.blocked) return rateLimited(c, this.policy, outcome.msBeforeNext, 'requests for this credential');
    setRateLimitHeaders(c, this.policy, { remaining: outcome.remaining, resetMs: outcome.msBeforeNext });
    return null;
  }

  /** Adds `points` to the shared count and records what Redis answered. Null when no limiter answered. */
  private async consume(
    key: string,
    points: number,
  ): Promise<{ blocked: boolean; remaining: number; msBeforeNext: number } | null> {
    let result: RateLimiterRes;
    let blocked = false;
    try {
      result = await this.limiter.consume(key, points);
    } catch (outcome) {
      if (!(outcome instanceof RateLimiterRes)) {
        this.logger.warn({ err: outcome, policy: this.policy.name }, 'rate limit not counted');
        return null;
      }
      result = outcome;
      blocked = true;
    }
    const now = Date.now();
    const state = this.states.get(key) ?? { remaining: 0, resetAt: 0, blockedUntil: 0, pending: 0 };
    state.remaining = result.remainingPoints;
    state.resetAt = now + result.msBeforeNext;
    state.blockedUntil = blocked ? now + result.msBeforeNext : 0;
    this.states.set(key, state);
    return { blocked, remaining: result.remainingPoints, msBeforeNext: result.msBeforeNext };
  }

  private scheduleFlush() {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      for (const [key, state] of this.states.entries()) {
        if (state.pending === 0) continue;
        const points = state.pending;
        state.pending = 0;
        void this.consume(key, points);
      }
    }, FLUSH_MS);
    this.flushTimer.unref();
  }

  /** Stops the flush timer (app shutdown); what was pending is dropped. */
  close(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
  }
}
