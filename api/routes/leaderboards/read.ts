import { createRoute } from '@hono/zod-openapi';
import { readStandings } from '../../../core/leaderboards/read-standings.js';
import { parseOffsetTimestamp } from '../../../shared/domain/chain-timestamp.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { defineRoute } from '../route-entry.js';
import { leaderboardParams, standingsQuery, standingsResponseSchema, toStandingsResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/v1/leaderboards/{id}',
  operationId: 'getLeaderboardStandings',
  tags: ['Leaderboards'],
  summary: 'A leaderboard and its standings: the top, or around a user',
  description: [
    'Platform credentials (`leaderboards:read`). The current period unless `period_start` names another; a past period answers its final standings (`final: true`).',
    'Ranked by score, then whoever reached it first, then platform_user_id; a credit shows within a second (docs/leaderboards.md).',
    "Another platform's board, an archived one, or one of the other mode: 404. A `period_start` that starts no period of the board: 400.",
  ].join(' '),
  request: { params: leaderboardParams, query: standingsQuery },
  responses: {
    200: { description: 'The standings.', content: { 'application/json': { schema: standingsResponseSchema } } },
    ...errorResponses(400, 404, 500),
  },
});

export const getLeaderboardStandingsRoute = defineRoute({
  access: { operation: 'readLeaderboards' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const query = c.req.valid('query');
    const answer = await readStandings(deps, {
      platformId: caller.providerId,
      boardId: c.req.valid('param').id,
      limit: query.limit,
      around: query.around === undefined ? undefined : senderUserId(query.around),
      periodStartUs: query.period_start === undefined ? undefined : parseOffsetTimestamp(query.period_start)!,
    });
    return ok(c, toStandingsResponse(answer));
  },
});
