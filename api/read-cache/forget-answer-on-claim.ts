import type { MiddlewareHandler } from 'hono';
import { answerKey } from './active-answer-cache.js';
import { announceClaim } from './answer-invalidation.js';
import type { AppEnv } from '../app-env.js';

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
    const { deps } = c.var;
    deps.chainCache.answers.invalidateKey(answerKey(caller.providerId, body.platform_user_id));
    await announceClaim(deps.redis, deps.config.QUEUE_PREFIX, caller.providerId, body.platform_user_id, deps.config.REDIS_CLUSTER).catch((error: unknown) =>
      deps.logger.warn({ err: error }, 'claim not announced to other replicas; their cached answers expire with ANSWER_CACHE_TTL_MS'),
    );
  };
}
