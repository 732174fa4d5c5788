import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.js';
import { AppError } from './errors.js';

/**
 * Answers 503 `unavailable` in the envelope when a request takes longer than
 * `limitMs`, whatever it waits for (a pool with no free connection, a Redis
 * that stopped answering). The handler is not cancelled: its statement is
 * bounded by the session's statement_timeout, its answer is dropped. Paths in
 * `exempt` (the live stream, open for as long as the client keeps it) pass.
 */
export function requestTimeout(limitMs: number, exempt: readonly string[]): MiddlewareHandler<AppEnv> {
  const exemptPaths = new Set(exempt);
  return async (c, next) => {
    if (exemptPaths.has(c.req.path)) return next();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new AppError('unavailable', 'The request took too long; try again')), limitMs);
    });
    try {
      await Promise.race([next(), expired]);
    } finally {
      clearTimeout(timer);
    }
  };
}
