import { createRoute } from '@hono/zod-openapi';
import { listAllLeaderboards } from '../../../../core/leaderboards/boards.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { toPageRequest } from '../../../http/pagination.js';
import { defineRoute } from '../../route-entry.js';
import { adminLeaderboardListResponseSchema, leaderboardListQuery, toAdminLeaderboardListResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/admin/v1/leaderboards',
  operationId: 'listLeaderboards',
  tags: ['Admin'],
  summary: 'List leaderboards, newest first',
  request: { query: leaderboardListQuery },
  responses: {
    200: {
      description: 'Boards of every status, newest first.',
      content: { 'application/json': { schema: adminLeaderboardListResponseSchema } },
    },
    ...errorResponses(400, 500),
  },
});

export const listLeaderboardsRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => {
    const query = c.req.valid('query');
    const page = await listAllLeaderboards(c.var.deps, { platformId: query.platform_id, page: toPageRequest(query) });
    return ok(c, toAdminLeaderboardListResponse(page));
  },
});
