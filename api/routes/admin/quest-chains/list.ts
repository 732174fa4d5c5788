import { createRoute } from '@hono/zod-openapi';
import { listChains } from '../../../../core/quest-chains/chains.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { toPageRequest } from '../../../http/pagination.js';
import { defineRoute } from '../../route-entry.js';
import { chainListQuery, chainListResponseSchema, toChainListResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/admin/v1/quest-chains',
  operationId: 'listQuestChains',
  tags: ['Admin'],
  summary: 'List quest chains, newest first',
  request: { query: chainListQuery },
  responses: {
    200: { description: 'Chains, newest first.', content: { 'application/json': { schema: chainListResponseSchema } } },
    ...errorResponses(400, 404, 500),
  },
});

export const listQuestChainsRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => {
    const query = c.req.valid('query');
    const definitions = await listChains(c.var.deps, { platformId: query.platform_id, page: toPageRequest(query) });
    return ok(c, toChainListResponse(definitions));
  },
});
