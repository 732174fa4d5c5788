import { createRoute } from '@hono/zod-openapi';
import { readPoints } from '../../../core/points/read-points.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { toPageRequest } from '../../http/pagination.js';
import { defineRoute } from '../route-entry.js';
import { pointsPageQuery, pointsResponseSchema, pointsUserParams, toPointsResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/v1/users/{platformUserId}/points',
  operationId: 'getPoints',
  tags: ['Points'],
  summary: "A user's points: balance, figures and ledger",
  description: [
    'Platform credentials (`rewards:read`). Claims of `points` rewards credit the balance, a reversal that marks such a claim reversed debits it (the balance may go below zero), spends take from it (docs/points.md).',
    '`entries` is the ledger, newest first: their amounts add up to `balance`. Page with `limit` (1 to 100, default 20) and `starting_after` = `next_cursor`.',
    'An unknown user has a balance of 0 and no entries.',
  ].join(' '),
  request: { params: pointsUserParams, query: pointsPageQuery },
  responses: {
    200: { description: 'The points.', content: { 'application/json': { schema: pointsResponseSchema } } },
    ...errorResponses(400, 500),
  },
});

export const getPointsRoute = defineRoute({
  access: { operation: 'readPoints' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const points = await readPoints(deps, {
      platformId: caller.providerId,
      platformUserId: senderUserId(c.req.valid('param').platformUserId),
      page: toPageRequest(c.req.valid('query')),
    });
    return ok(c, toPointsResponse(points));
  },
});
