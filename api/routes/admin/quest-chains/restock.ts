import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { restockPrize } from '../../../../core/quest-chains/mystery-box.js';
import type { AppEnv } from '../../../app-env.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../../http/body-guard.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { adminSecurity } from '../../../http/security.js';
import { chainResponseSchema, prizeParams, restockSchema, toChainDefinitionResponse } from './schema.js';

export function registerRestockPrize(app: OpenAPIHono<AppEnv>, admin: MiddlewareHandler<AppEnv>) {
  const route = createRoute({
    method: 'patch',
    path: '/admin/v1/mystery-boxes/{id}/prizes/{prize_id}',
    operationId: 'restockPrize',
    tags: ['Admin'],
    summary: "Set what is left of a mystery box's prize",
    description:
      'A box whose prizes were all out of stock (409 out_of_stock) is claimable again once one is restocked. The odds published change with it.',
    security: adminSecurity,
    middleware: [admin, jsonBodyGuard(SINGLE_BODY_LIMIT)],
    request: { params: prizeParams, body: { content: { 'application/json': { schema: restockSchema } }, required: true } },
    responses: {
      200: { description: 'The chain as stored, with ids.', content: { 'application/json': { schema: chainResponseSchema } } },
      ...errorResponses(400, 401, 404, 413, 415, 500),
    },
  });
  app.openapi(route, async (c) => {
    const { deps } = c.var;
    const { id, prize_id } = c.req.valid('param');
    const definition = await restockPrize(deps, { chainId: id, prizeId: prize_id, stock: c.req.valid('json').stock });
    return ok(c, toChainDefinitionResponse(definition));
  });
}
