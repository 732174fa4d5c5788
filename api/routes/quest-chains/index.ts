import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { readActiveChains } from '../../../shared/services/quest-chains/active-read.js';
import type { AppEnv } from '../../app-env.js';
import { requireOperation } from '../../auth/authenticate.js';
import { errorResponses } from '../../http/envelope.js';
import { apiKeySecurity } from '../../http/security.js';
import { platformUserIdParams } from '../../http/common-schemas.js';
import { activeChainsResponseSchema } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/v1/quest-chains/active/{platformUserId}',
  tags: ['Quest chains'],
  summary: "A user's active quest chains with task states and progress",
  description:
    'Platform credentials (`quest_chains:read`). Every chain of your platform with status `active` and `start_date <= now < end_date`, with the user\'s progress (completed chains included, so rewards can be claimed). An unknown user, or one of another platform, answers 200 with `user.exists: false` and no chains.',
  security: apiKeySecurity,
  middleware: [requireOperation('readActiveChains')] as const,
  request: { params: platformUserIdParams },
  responses: {
    200: { description: 'Active chains of the user.', content: { 'application/json': { schema: activeChainsResponseSchema } } },
    ...errorResponses(400, 401, 403, 500),
  },
});

export function registerQuestChainRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const { platformUserId } = c.req.valid('param');
    const { deps, caller } = c.var;
    const data = await readActiveChains(deps, caller.providerId, platformUserId);
    return c.json({ success: true as const, data }, 200);
  });
}
