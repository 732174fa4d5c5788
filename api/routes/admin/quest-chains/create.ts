import { createRoute } from '@hono/zod-openapi';
import { createChain } from '../../../../core/quest-chains/create-chain.js';
import { BATCH_BODY_LIMIT, jsonBodyGuard } from '../../../http/body-guard.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { defineRoute } from '../../route-entry.js';
import { createChainSchema, toCreateChainInput } from './create-schema.js';
import { chainResponseSchema, toChainDefinitionResponse } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/admin/v1/quest-chains',
  operationId: 'createQuestChain',
  tags: ['Admin'],
  summary: 'Create a quest chain with its tasks and optional reward',
  description:
    "One transaction. 400 naming the field when platform_id is not a platform, advertiser_id not an advertiser, there are no tasks, sequence numbers are not exactly 1..n, or end_date is not after start_date. The platform's users are flagged for re-evaluation so their stored events count for the new chain.",
  // Up to 100 tasks with descriptions do not fit the 64 KiB single-item limit; a chain gets the batch limit.
  middleware: [jsonBodyGuard(BATCH_BODY_LIMIT)],
  request: { body: { content: { 'application/json': { schema: createChainSchema } }, required: true } },
  responses: {
    200: { description: 'The chain as stored, with ids.', content: { 'application/json': { schema: chainResponseSchema } } },
    ...errorResponses(400, 404, 413, 415, 500),
  },
});

export const createQuestChainRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => {
    const { deps } = c.var;
    const definition = await createChain(deps, toCreateChainInput(c.req.valid('json')));
    // This replica's read sees the new chain at once; others within their CHAIN_CACHE_TTL_MS.
    return ok(c, toChainDefinitionResponse(definition));
  },
});
