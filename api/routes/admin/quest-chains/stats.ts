import { createRoute } from '@hono/zod-openapi';
import { readChainStats } from '../../../../core/quest-chains/read-chain-stats.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { statsResponseSchema, toStatsResponse } from '../../quest-chains/stats/schema.js';
import { defineRoute } from '../../route-entry.js';
import { chainIdParams } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/admin/v1/quest-chains/{id}/stats',
  operationId: 'getAnyQuestChainStats',
  tags: ['Admin'],
  summary: 'How a chain does: funnel, tasks, claims, prizes, budget, daily series',
  description:
    'Counted over the stored rows in one snapshot, so the figures agree with each other and with a count over the rows at that moment, whatever runs beside it (docs/chain-stats.md). Any chain, live or test. The page `/admin/campaigns/{id}` draws it.',
  request: { params: chainIdParams },
  responses: {
    200: { description: 'The chain stats.', content: { 'application/json': { schema: statsResponseSchema } } },
    ...errorResponses(400, 404, 500),
  },
});

export const getAnyQuestChainStatsRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => {
    const stats = await readChainStats(c.var.deps, { chainId: c.req.valid('param').id });
    return ok(c, toStatsResponse(stats));
  },
});
