import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { getChain } from '../../../../core/quest-chains/chains.js';
import type { AppEnv } from '../../../app-env.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { adminSecurity } from '../../../http/security.js';
import { chainIdParams, chainResponseSchema, toChainDefinitionResponse } from './schema.js';

export function registerGetQuestChain(app: OpenAPIHono<AppEnv>, admin: MiddlewareHandler<AppEnv>) {
  const route = createRoute({
    method: 'get',
    path: '/admin/v1/quest-chains/{id}',
    operationId: 'getQuestChain',
    tags: ['Admin'],
    summary: 'One quest chain',
    security: adminSecurity,
    middleware: [admin],
    request: { params: chainIdParams },
    responses: {
      200: { description: 'The chain as stored, with ids.', content: { 'application/json': { schema: chainResponseSchema } } },
      ...errorResponses(400, 401, 404, 500),
    },
  });
  app.openapi(route, async (c) => {
    const definition = await getChain(c.var.deps, { chainId: c.req.valid('param').id });
    return ok(c, toChainDefinitionResponse(definition));
  });
}
