import { createRoute } from '@hono/zod-openapi';
import { listPlatformLeaderboards } from '../../../core/leaderboards/boards.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { toPageRequest } from '../../http/pagination.js';
import { defineRoute } from '../route-entry.js';
import { leaderboardListQuery, leaderboardListResponseSchema, toLeaderboardListResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/v1/leaderboards',
  operationId: 'listPlatformLeaderboards',
  tags: ['Leaderboards'],
  summary: "Your platform's leaderboards",
  description:
    'Platform credentials (`leaderboards:read`). The active boards of your platform, newest first; a test credential lists the test boards, a live one the live boards.',
  request: { query: leaderboardListQuery },
  responses: {
    200: { description: 'Your boards.', content: { 'application/json': { schema: leaderboardListResponseSchema } } },
    ...errorResponses(400, 500),
  },
});

export const listPlatformLeaderboardsRoute = defineRoute({
  access: { operation: 'readLeaderboards' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const page = await listPlatformLeaderboards(deps, {
      platformId: caller.providerId,
      page: toPageRequest(c.req.valid('query')),
    });
    return ok(c, toLeaderboardListResponse(page));
  },
});
