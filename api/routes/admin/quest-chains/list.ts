import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { listChains } from '../../../../core/quest-chains/chains.js';
import type { AppEnv } from '../../../app-env.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { toPageRequest } from '../../../http/pagination.js';
import { adminSecurity } from '../../../http/security.js';
import { chainListQuery, chainListResponseSchema, toChainListResponse } from './schema.js';

export function registerListQuestChains(app: OpenAPIHono<AppEnv>, admin: MiddlewareHandler<AppEnv>) {
  const route = createRoute({
    method: 'get',
    path: '/admin/v1/quest-chains',
    operationId: 'listQuestChains',
    tags: ['Admin'],
    summary: 'List quest chains, newest first',
    security: adminSecurity,
    middleware: [admin],
    request: { query: chainListQuery },
    responses: {
      200: { description: 'Chains, newest first.', content: { 'application/json': { schema: chainListResponseSchema } } },
      ...errorResponses(400, 401, 404, 500),
    },
  });
  app.openapi(route, async (c) => {
    const query = c.req.valid('query');
    const definitions = await listChains(c.var.deps, { platformId: query.platform_id, page: toPageRequest(query) });
    return ok(c, toChainListResponse(definitions));
  });
}
