import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'hono';
import { LRUCache } from 'lru-cache';
import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from '../../shared/observability/logger.js';
import type { AppError } from '../http/errors.js';
import { type RateLimitPolicy, rateLimited } from './rate-limit-policy.js';

// Addresses remembered as blocked at once; a flood from more addresses than this forgets the oldest blocks.
const MAX_BLOCKED = 50_000;

/**
 * Counts failed attempts (a wrong key or secret, a wrong admin token) per
 * client address, shared by every API replica through Redis. Once an address
 * passes the quota it is blocked until its window ends: every attempt from it
 * is refused before its credentials are even looked at, so a correct guess
 * cannot be told from a wrong one while blocked. The block is also kept in
 * this process, so a flood of refused attempts costs no Redis round trip.
 *
 * A blocked address is also answered late (`blockedDelayMs`, a tarpit): a
 * flooding client waits for each refusal before its next attempt, so its
 * flood shrinks to one request per connection per delay instead of
 * thousands a second, and stops taking the CPU the good traffic needs.
 */
export class FailureLimiter {
  private readonly blocked = new LRUCache<string, number>({ max: MAX_BLOCKED });

  constructor(
    readonly policy: RateLimitPolicy,
    private readonly limiter: RateLimiterAbstract,
    private readonly what: string,
    private readonly logger: Logger,
    private readonly blockedDelayMs = 0,
  ) {}

  /** As `refusal`, answered after the tarpit delay (never past the block's end). */
  async refusalLate(c: Context, address: string): Promise<AppError | null> {
    const until = this.blocked.get(address);
    const refused = this.refusal(c, address);
    if (refused && until !== undefined && this.blockedDelayMs > 0) await sleep(Math.min(this.blockedDelayMs, until - Date.now()));
    return refused;
  }

  /** The 429 for an address that is blocked now, or null. Costs no I/O. */
  refusal(c: Context, address: string): AppError | null {
    const until = this.blocked.get(address);
    if (until === undefined) return null;
    const left = until - Date.now();
    if (left <= 0) {
      this.blocked.delete(address);
      return null;
    }
    return rateLimited(c, this.policy, left, this.what);
  }

  /** Counts one failure; the 429 to answer instead of the failure when it was one too many, else null. */
  async record(c: Context, address: string): Promise<AppError | null> {
    try {
      await this.limiter.consume(address);
      return null;
    } catch (outcome) {
      if (outcome instanceof RateLimiterRes) {
        this.blocked.set(address, Date.now() + outcome.msBeforeNext);
        return rateLimited(c, this.policy, outcome.msBeforeNext, this.what);
      }
      // Neither Redis nor the in-memory insurance answered: count nothing rather than fail the request.
      this.logger.warn({ err: outcome, policy: this.policy.name }, 'rate limit not counted');
      return null;
    }
  }
}
