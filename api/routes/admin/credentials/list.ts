import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { listCredentials } from '../../../../core/admin/credentials.js';
import type { AppEnv } from '../../../app-env.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { toPageRequest } from '../../../http/pagination.js';
import { adminSecurity } from '../../../http/security.js';
import { providerIdParams } from '../providers/schema.js';
import { credentialListResponseSchema, credentialsPageQuery, toCredentialListResponse } from './schema.js';

export function registerListCredentials(app: OpenAPIHono<AppEnv>, admin: MiddlewareHandler<AppEnv>) {
  const route = createRoute({
    method: 'get',
    path: '/admin/v1/providers/{id}/credentials',
    operationId: 'listCredentials',
    tags: ['Admin'],
    summary: "List a provider's credentials (never their secrets)",
    security: adminSecurity,
    middleware: [admin],
    request: { params: providerIdParams, query: credentialsPageQuery },
    responses: {
      200: { description: 'Credentials.', content: { 'application/json': { schema: credentialListResponseSchema } } },
      ...errorResponses(400, 401, 404, 500),
    },
  });
  app.openapi(route, async (c) => {
    const page = toPageRequest(c.req.valid('query'));
    const credentials = await listCredentials(c.var.deps, { providerId: c.req.valid('param').id, page });
    return ok(c, toCredentialListResponse(credentials));
  });
}
