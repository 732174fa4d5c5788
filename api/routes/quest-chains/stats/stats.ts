import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { readChainStats } from '../../../../core/quest-chains/read-chain-stats.js';
import type { AppEnv } from '../../../app-env.js';
import { requireOperation } from '../../../auth/authenticate.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { apiKeySecurity } from '../../../http/security.js';
import { statsParams, statsResponseSchema, toStatsResponse } from './schema.js';

export const statsRoute = createRoute({
  method: 'get',
  path: '/v1/quest-chains/{questChainId}/stats',
  operationId: 'getQuestChainStats',
  tags: ['Quest chains'],
  summary: 'How your campaign does: funnel, tasks, claims, prizes, budget, daily series',
  description: [
    'Advertiser credentials (`quest_chains:stats`), for the chains you fund (`advertiser_id`). A chain of another advertiser, or none: 404.',
    'Test mode: a test credential reads its test chains only, a live one its live chains only.',
    'Counted over the stored rows in one snapshot (docs/campaign-stats.md).',
  ].join(' '),
  security: apiKeySecurity,
  middleware: [requireOperation('readChainStats')] as const,
  request: { params: statsParams },
  responses: {
    200: { description: 'The campaign figures.', content: { 'application/json': { schema: statsResponseSchema } } },
    ...errorResponses(400, 401, 403, 404, 500),
  },
});

/** On its own app behind GET /v1/quest-chains/* (see index.ts), whose environment adds to AppEnv. */
export function registerQuestChainStats<E extends AppEnv>(app: OpenAPIHono<E>) {
  app.openapi(statsRoute, async (c) => {
    const { caller, deps } = c.var;
    const stats = await readChainStats(deps, {
      chainId: c.req.valid('param').questChainId,
      advertiser: { providerId: caller.providerId, livemode: caller.livemode },
    });
    return ok(c, toStatsResponse(stats));
  });
}
