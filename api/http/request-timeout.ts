import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.js';
import { AppError } from './errors.js';

/**
 * Answers 503 `unavailable` in the envelope when a request takes longer than
 * `limitMs`, whatever it waits for (a pool with no free connection, a Redis
 * that stopped answering). The handler is not cancelled: its statement is
 * bounded by the session's statement_timeout, its answer is dropped. Paths in
 * `exempt` (the live stream, open for as long as the client keeps it) pass.
 *
 * No timer per request: a timer and a `Promise.race` per request would each
 * cost a cached read a visible share of its CPU. Every request has the same limit, so requests expire in
 * the order they arrived: one sweep, every `limitMs / 10` (at most a second)
 * while requests are open, answers the overdue ones. A request is answered
 * 503 between `limitMs` and `limitMs` plus one sweep interval.
 */
export function requestTimeout(limitMs: number, exempt: readonly string[]): MiddlewareHandler<AppEnv> {
  const exemptPaths = new Set(exempt);
  const deadlines = new RequestDeadlines(limitMs);
  return (c, next) => (exemptPaths.has(c.req.path) ? next() : deadlines.guard(next()));
}

interface Open {
  dueTick: number;
  expire: (error: AppError) => void;
}

class RequestDeadlines {
  // Insertion order is deadline order (one limit for all): the sweep stops at the first request not due.
  private readonly open = new Set<Open>();
  private readonly tickMs: number;
  private readonly ticksPerLimit: number;
  private tick = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(limitMs: number) {
    this.tickMs = Math.max(1, Math.min(1000, Math.floor(limitMs / 10)));
    this.ticksPerLimit = Math.ceil(limitMs / this.tickMs);
  }

  guard(work: Promise<void>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      // One tick more than the limit: the current tick is already under way when the request arrives.
      const open: Open = { dueTick: this.tick + this.ticksPerLimit + 1, expire: reject };
      this.open.add(open);
      this.timer ??= setInterval(() => this.sweep(), this.tickMs).unref();
      work.then(
        () => (this.close(open), resolve()),
        (error: unknown) => (this.close(open), reject(error)),
      );
    });
  }

  private close(open: Open) {
    this.open.delete(open);
  }

  private sweep() {
    this.tick += 1;
    // Stopped by a sweep that finds nothing open, not by each last request: no timer churn between requests.
    if (this.open.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    for (const open of this.open) {
      if (open.dueTick > this.tick) break;
      this.close(open);
      open.expire(new AppError('unavailable', 'The request took too long; try again'));
    }
  }
}
