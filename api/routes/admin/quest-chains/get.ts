import { createRoute } from '@hono/zod-openapi';
import { getChain } from '../../../../core/quest-chains/chains.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { defineRoute } from '../../route-entry.js';
import { chainIdParams, chainResponseSchema, toChainDefinitionResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/admin/v1/quest-chains/{id}',
  operationId: 'getQuestChain',
  tags: ['Admin'],
  summary: 'One quest chain',
  request: { params: chainIdParams },
  responses: {
    200: { description: 'The chain as stored, with ids.', content: { 'application/json': { schema: chainResponseSchema } } },
    ...errorResponses(400, 404, 500),
  },
});

export const getQuestChainRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => {
    const definition = await getChain(c.var.deps, { chainId: c.req.valid('param').id });
    return ok(c, toChainDefinitionResponse(definition));
  },
});
