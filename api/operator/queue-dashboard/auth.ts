import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../app-env.js';
import { adminGuessGuard } from '../../auth/admin-auth.js';
import type { RateLimits } from '../../auth/rate-limits.js';
import { AppError, errorResponse } from '../../http/errors.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The token a request presents: `Bearer <token>`, or HTTP Basic with the token as password (any user name). */
function presentedToken(header: string): string | null {
  const bearer = /^Bearer (.+)$/i.exec(header);
  if (bearer) return bearer[1]!;
  const basic = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header);
  if (!basic) return null;
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? null : decoded.slice(colon + 1);
}

/**
 * requireAdmin for the queue dashboard. A browser cannot attach a bearer
 * header to page loads, so this path alone also takes HTTP Basic with the
 * admin token as password, and a 401 carries the Basic challenge that makes
 * the browser ask for it. Without ADMIN_TOKEN the dashboard does not exist (404).
 */
export function requireAdminForDashboard(adminToken: string | undefined, limits: RateLimits): MiddlewareHandler<AppEnv> {
  const expected = adminToken ? digest(adminToken) : null;
  return async (c, next) => {
    if (!expected) throw new AppError('not_found', `No route for ${c.req.method} ${c.req.path}`);
    const guard = adminGuessGuard(c, limits);
    const refused = await guard.refusal();
    if (refused) return errorResponse(c, refused);
    const token = presentedToken(c.req.header('authorization') ?? '');
    const valid = token !== null && timingSafeEqual(digest(token), expected);
    if (token !== null && !valid) {
      const limited = await guard.wrongToken();
      if (limited) return errorResponse(c, limited);
    }
    if (!valid) {
      c.header('WWW-Authenticate', 'Basic realm="Queue dashboard", charset="UTF-8"');
      const code = token === null ? 'missing_credentials' : 'invalid_credentials';
      return errorResponse(c, new AppError(code, 'Admin token required (Bearer, or Basic with the token as password)'));
    }
    await next();
  };
}
