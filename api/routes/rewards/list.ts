import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { listRewards } from '../../../core/rewards/list-rewards.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import { requireOperation } from '../../auth/authenticate.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { toPageRequest } from '../../http/pagination.js';
import { apiKeySecurity } from '../../http/security.js';
import type { MountedEnv } from '../../http/wildcard-mount.js';
import { platformUserIdParams } from '../shared-shapes.js';
import { rewardsPageQuery, rewardsResponseSchema, toRewardsResponse } from './schema.js';

export const listRewardsRoute = createRoute({
  method: 'get',
  path: '/v1/rewards/{platformUserId}',
  operationId: 'listRewards',
  tags: ['Rewards'],
  summary: "A user's claimable and claimed rewards",
  description:
    'Platform credentials (`rewards:read`). Covers chains of every status (earned is earned). `claimable` holds task rewards (kind `task`, oldest completion first) then chain rewards (kind `chain`); `claimed` is oldest first. An unknown user has empty lists.',
  security: apiKeySecurity,
  middleware: [requireOperation('readRewards')] as const,
  request: { params: platformUserIdParams, query: rewardsPageQuery },
  responses: {
    200: { description: 'The rewards.', content: { 'application/json': { schema: rewardsResponseSchema } } },
    ...errorResponses(400, 401, 403, 500),
  },
});

/** On the app behind GET /v1/rewards/* (see index.ts), beside the draw route it clashes with in RegExpRouter. */
export function registerListRewards(app: OpenAPIHono<MountedEnv>) {
  app.openapi(listRewardsRoute, async (c) => {
    const { deps, caller } = c.var;
    const rewards = await listRewards(deps, {
      platformId: caller.providerId,
      platformUserId: senderUserId(c.req.valid('param').platformUserId),
      page: toPageRequest(c.req.valid('query')),
    });
    return ok(c, toRewardsResponse(rewards));
  });
}
