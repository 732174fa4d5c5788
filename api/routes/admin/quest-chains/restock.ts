import { createRoute } from '@hono/zod-openapi';
import { restockPrize } from '../../../../core/quest-chains/mystery-box.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../../http/body-guard.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { defineRoute } from '../../route-entry.js';
import { chainResponseSchema, prizeParams, restockSchema, toChainDefinitionResponse } from './schema.js';

const route = createRoute({
  method: 'patch',
  path: '/admin/v1/mystery-boxes/{id}/prizes/{prize_id}',
  operationId: 'restockPrize',
  tags: ['Admin'],
  summary: "Set what is left of a mystery box's prize",
  description:
    'A box whose prizes were all out of stock (409 out_of_stock) is claimable again once one is restocked. The odds published change with it.',
  middleware: [jsonBodyGuard(SINGLE_BODY_LIMIT)],
  request: { params: prizeParams, body: { content: { 'application/json': { schema: restockSchema } }, required: true } },
  responses: {
    200: { description: 'The chain as stored, with ids.', content: { 'application/json': { schema: chainResponseSchema } } },
    ...errorResponses(400, 404, 413, 415, 500),
  },
});

export const restockPrizeRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => {
    const { deps } = c.var;
    const { id, prize_id } = c.req.valid('param');
    const definition = await restockPrize(deps, { chainId: id, prizeId: prize_id, stock: c.req.valid('json').stock });
    return ok(c, toChainDefinitionResponse(definition));
  },
});
