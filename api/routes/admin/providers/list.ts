import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { listProviders } from '../../../../core/admin/providers.js';
import type { AppEnv } from '../../../app-env.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { toPageRequest } from '../../../http/pagination.js';
import { adminSecurity } from '../../../http/security.js';
import { providerListResponseSchema, providersPageQuery, toProviderListResponse } from './schema.js';

export function registerListProviders(app: OpenAPIHono<AppEnv>, admin: MiddlewareHandler<AppEnv>) {
  const route = createRoute({
    method: 'get',
    path: '/admin/v1/providers',
    operationId: 'listProviders',
    tags: ['Admin'],
    summary: 'List providers',
    security: adminSecurity,
    middleware: [admin],
    request: { query: providersPageQuery },
    responses: {
      200: {
        description: 'Every provider, oldest first.',
        content: { 'application/json': { schema: providerListResponseSchema } },
      },
      ...errorResponses(400, 401, 404, 500),
    },
  });
  app.openapi(route, async (c) => {
    const providers = await listProviders(c.var.deps, toPageRequest(c.req.valid('query')));
    return ok(c, toProviderListResponse(providers));
  });
}
