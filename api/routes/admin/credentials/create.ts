import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { createCredential } from '../../../../core/admin/credentials.js';
import type { AppEnv } from '../../../app-env.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../../http/body-guard.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { adminSecurity } from '../../../http/security.js';
import { providerIdParams } from '../providers/schema.js';
import { createCredentialSchema, createdCredentialResponseSchema, toCreatedCredentialResponse } from './schema.js';

export function registerCreateCredential(app: OpenAPIHono<AppEnv>, admin: MiddlewareHandler<AppEnv>) {
  const route = createRoute({
    method: 'post',
    path: '/admin/v1/providers/{id}/credentials',
    operationId: 'createCredential',
    tags: ['Admin'],
    summary: 'Create a credential; the secret is returned once',
    security: adminSecurity,
    middleware: [admin, jsonBodyGuard(SINGLE_BODY_LIMIT)],
    request: {
      params: providerIdParams,
      body: { content: { 'application/json': { schema: createCredentialSchema } }, required: true },
    },
    responses: {
      200: {
        description: 'The credential with its secret.',
        content: { 'application/json': { schema: createdCredentialResponseSchema } },
      },
      ...errorResponses(400, 401, 404, 413, 415, 500),
    },
  });
  app.openapi(route, async (c) => {
    const body = c.req.valid('json');
    const created = await createCredential(c.var.deps, {
      providerId: c.req.valid('param').id,
      permissions: body.permissions,
      mode: body.mode,
    });
    return ok(c, toCreatedCredentialResponse(created));
  });
}
