import { createRoute } from '@hono/zod-openapi';
import { archiveLeaderboard } from '../../../../core/leaderboards/boards.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { defineRoute } from '../../route-entry.js';
import { adminLeaderboardResponseSchema, leaderboardIdParams, toAdminLeaderboardResponse } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/admin/v1/leaderboards/{id}/archive',
  operationId: 'archiveLeaderboard',
  tags: ['Admin'],
  summary: 'Archive a leaderboard',
  description:
    "The board stops ranking and finalizes no more periods; it leaves the platform's list and answers 404 to the platform. Final standings already stored stay. Archiving twice answers the board again.",
  request: { params: leaderboardIdParams },
  responses: {
    200: { description: 'The archived board.', content: { 'application/json': { schema: adminLeaderboardResponseSchema } } },
    ...errorResponses(400, 404, 500),
  },
});

export const archiveLeaderboardRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => ok(c, toAdminLeaderboardResponse(await archiveLeaderboard(c.var.deps, { id: c.req.valid('param').id }))),
});
