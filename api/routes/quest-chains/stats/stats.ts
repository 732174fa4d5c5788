import { createRoute } from '@hono/zod-openapi';
import { readChainStats } from '../../../../core/quest-chains/read-chain-stats.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { defineRoute } from '../../route-entry.js';
import { statsParams, statsResponseSchema, toStatsResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/v1/quest-chains/{questChainId}/stats',
  operationId: 'getQuestChainStats',
  tags: ['Quest chains'],
  summary: 'How your chain does: funnel, tasks, claims, prizes, budget, daily series',
  description: [
    'Advertiser credentials (`quest_chains:stats`), for the chains you fund (`advertiser_id`). A chain of another advertiser, or none: 404.',
    'Test mode: a test credential reads its test chains only, a live one its live chains only.',
    'Counted over the stored rows in one snapshot (docs/chain-stats.md).',
  ].join(' '),
  request: { params: statsParams },
  responses: {
    200: { description: 'The chain stats.', content: { 'application/json': { schema: statsResponseSchema } } },
    ...errorResponses(400, 404, 500),
  },
});

export const getQuestChainStatsRoute = defineRoute({
  access: { operation: 'readChainStats' },
  route,
  handler: async (c) => {
    const { caller, deps } = c.var;
    const stats = await readChainStats(deps, {
      chainId: c.req.valid('param').questChainId,
      advertiser: { providerId: caller.providerId, livemode: caller.livemode },
    });
    return ok(c, toStatsResponse(stats));
  },
});
