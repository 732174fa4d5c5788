import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { AppError } from '../http/errors.js';
import type { AppEnv } from '../app-env.js';

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
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer (.+)$/i.exec(header);
    if (!match) throw new AppError('missing_credentials', 'Authorization: Bearer <ADMIN_TOKEN> required');
    if (!timingSafeEqual(digest(match[1]!), expected)) throw new AppError('invalid_credentials', 'Invalid admin token');
    await next();
  };
}
