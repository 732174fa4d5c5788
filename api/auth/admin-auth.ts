import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.js';
import { AppError } from '../http/errors.js';
import { clientAddress } from './client-address.js';
import type { RateLimits } from './rate-limits.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Guards /admin/*: without ADMIN_TOKEN configured the admin API does not
 * exist (404, as for any unknown route); with it, a matching bearer token is
 * required (401). Compared as digests so the comparison is constant-time
 * whatever the length presented.
 */
export function requireAdmin(adminToken: string | undefined): MiddlewareHandler<AppEnv> {
  const expected = adminToken ? digest(adminToken) : null;
  return async (c, next) => {
    if (!expected) throw new AppError('not_found', `No route for ${c.req.method} ${c.req.path}`);
    const guard = adminGuessGuard(c, c.var.deps.rateLimits);
    const refused = await guard.refusal();
    if (refused) throw refused;
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer (.+)$/i.exec(header);
    if (!match) throw new AppError('missing_credentials', 'Authorization: Bearer <ADMIN_TOKEN> required');
    if (!timingSafeEqual(digest(match[1]!), expected))
      throw (await guard.wrongToken()) ?? new AppError('invalid_credentials', 'Invalid admin token');
    await next();
  };
}

/**
 * The wrong-admin-token limit (docs/operations.md): an address past its quota
 * is refused before its token is compared, so guessing stops paying off.
 * Only wrong tokens count; a request without one (a browser's first load of
 * the dashboard) does not.
 */
export function adminGuessGuard(
  c: Context,
  limits: RateLimits,
): { refusal: () => Promise<AppError | null>; wrongToken: () => Promise<AppError | null> } {
  const { adminFailures, trustedProxies } = limits;
  if (!adminFailures) return { refusal: async () => null, wrongToken: async () => null };
  const address = clientAddress(c, trustedProxies);
  return { refusal: () => adminFailures.refusalLate(c, address), wrongToken: () => adminFailures.record(c, address) };
}
