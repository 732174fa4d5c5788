import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { createProvider } from '../../../../core/admin/providers.js';
import type { AppEnv } from '../../../app-env.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../../http/body-guard.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { adminSecurity } from '../../../http/security.js';
import { createProviderSchema, providerResponseSchema, toProviderResponse } from './schema.js';

export function registerCreateProvider(app: OpenAPIHono<AppEnv>, admin: MiddlewareHandler<AppEnv>) {
  const route = createRoute({
    method: 'post',
    path: '/admin/v1/providers',
    operationId: 'createProvider',
    tags: ['Admin'],
    summary: 'Create a platform or advertiser',
    security: adminSecurity,
    middleware: [admin, jsonBodyGuard(SINGLE_BODY_LIMIT)],
    request: { body: { content: { 'application/json': { schema: createProviderSchema } }, required: true } },
    responses: {
      200: { description: 'The provider.', content: { 'application/json': { schema: providerResponseSchema } } },
      ...errorResponses(400, 401, 404, 413, 415, 500),
    },
  });
  app.openapi(route, async (c) => {
    const provider = await createProvider(c.var.deps, c.req.valid('json'));
    return ok(c, toProviderResponse(provider));
  });
}
