import { createRoute } from '@hono/zod-openapi';
import { listRewards } from '../../../core/rewards/list-rewards.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { toPageRequest } from '../../http/pagination.js';
import { defineRoute } from '../route-entry.js';
import { platformUserIdParams } from '../shared-shapes.js';
import { rewardsPageQuery, rewardsResponseSchema, toRewardsResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/v1/rewards/{platformUserId}',
  operationId: 'listRewards',
  tags: ['Rewards'],
  summary: "A user's claimable and claimed rewards",
  description:
    'Platform credentials (`rewards:read`). Covers chains of every status (earned is earned). `claimable` holds task rewards (kind `task`, oldest completion first) then chain rewards (kind `chain`); `claimed` is oldest first. An unknown user has empty lists.',
  request: { params: platformUserIdParams, query: rewardsPageQuery },
  responses: {
    200: { description: 'The rewards.', content: { 'application/json': { schema: rewardsResponseSchema } } },
    ...errorResponses(400, 500),
  },
});

export const listRewardsRoute = defineRoute({
  access: { operation: 'readRewards' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const rewards = await listRewards(deps, {
      platformId: caller.providerId,
      platformUserId: senderUserId(c.req.valid('param').platformUserId),
      page: toPageRequest(c.req.valid('query')),
    });
    return ok(c, toRewardsResponse(rewards));
  },
});
