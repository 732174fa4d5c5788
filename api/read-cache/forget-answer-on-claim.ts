import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.js';
import { forgetAnswers } from './answer-invalidation.js';

/**
 * Wraps POST /v1/rewards/claim: a claim changes the claimer's active-chains
 * answer (claimable flags and tasks), so this replica drops its cached answer
 * at once and tells the others. Only a refusal (4xx) surely changed nothing.
 */
export function forgetAnswerOnClaim(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (c.res.status >= 400 && c.res.status < 500) return;
    const caller = c.get('caller');
    const body = c.req.valid('json' as never) as { platform_user_id?: unknown } | undefined;
    if (!caller || typeof body?.platform_user_id !== 'string') return;
    await forgetAnswers(c.var.deps, caller.providerId, body.platform_user_id);
  };
}
