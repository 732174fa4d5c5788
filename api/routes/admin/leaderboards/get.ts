import { createRoute } from '@hono/zod-openapi';
import { getLeaderboard } from '../../../../core/leaderboards/boards.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { defineRoute } from '../../route-entry.js';
import { adminLeaderboardResponseSchema, leaderboardIdParams, toAdminLeaderboardResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/admin/v1/leaderboards/{id}',
  operationId: 'getLeaderboard',
  tags: ['Admin'],
  summary: 'One leaderboard',
  request: { params: leaderboardIdParams },
  responses: {
    200: { description: 'The board as stored.', content: { 'application/json': { schema: adminLeaderboardResponseSchema } } },
    ...errorResponses(400, 404, 500),
  },
});

export const getLeaderboardRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => ok(c, toAdminLeaderboardResponse(await getLeaderboard(c.var.deps, { id: c.req.valid('param').id }))),
});
