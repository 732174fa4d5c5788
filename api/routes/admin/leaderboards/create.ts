import { createRoute } from '@hono/zod-openapi';
import { createLeaderboard } from '../../../../core/leaderboards/boards.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../../http/body-guard.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { defineRoute } from '../../route-entry.js';
import {
  adminLeaderboardResponseSchema,
  createLeaderboardSchema,
  toAdminLeaderboardResponse,
  toCreateLeaderboardInput,
} from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/admin/v1/leaderboards',
  operationId: 'createLeaderboard',
  tags: ['Admin'],
  summary: "Create a leaderboard of a platform's users",
  description:
    '400 naming the field for an unknown metric, an end_date not after start_date, an unknown time zone, a size outside 1 to 100,000, a platform_id that is not a platform, or an unknown field (docs/leaderboards.md).',
  middleware: [jsonBodyGuard(SINGLE_BODY_LIMIT)],
  request: { body: { content: { 'application/json': { schema: createLeaderboardSchema } }, required: true } },
  responses: {
    200: { description: 'The board as stored.', content: { 'application/json': { schema: adminLeaderboardResponseSchema } } },
    ...errorResponses(400, 413, 415, 500),
  },
});

export const createLeaderboardRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => {
    const board = await createLeaderboard(c.var.deps, toCreateLeaderboardInput(c.req.valid('json')));
    return ok(c, toAdminLeaderboardResponse(board));
  },
});
