import { createRoute } from '@hono/zod-openapi';
import { setChainStatus } from '../../../../core/quest-chains/chains.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../../http/body-guard.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { defineRoute } from '../../route-entry.js';
import { chainIdParams, chainResponseSchema, toChainDefinitionResponse, updateChainSchema } from './schema.js';

const route = createRoute({
  method: 'patch',
  path: '/admin/v1/quest-chains/{id}',
  operationId: 'updateQuestChain',
  tags: ['Admin'],
  summary: 'Set the status of a quest chain (draft, active, paused, ended)',
  description: 'Progress keeps being computed in every status; the status only decides whether GET active lists the chain.',
  middleware: [jsonBodyGuard(SINGLE_BODY_LIMIT)],
  request: { params: chainIdParams, body: { content: { 'application/json': { schema: updateChainSchema } }, required: true } },
  responses: {
    200: { description: 'The chain as stored, with ids.', content: { 'application/json': { schema: chainResponseSchema } } },
    ...errorResponses(400, 404, 413, 415, 500),
  },
});

export const updateQuestChainRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => {
    const { deps } = c.var;
    const definition = await setChainStatus(deps, { chainId: c.req.valid('param').id, status: c.req.valid('json').status });
    return ok(c, toChainDefinitionResponse(definition));
  },
});
