import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { updateCredential } from '../../../../core/admin/credentials.js';
import type { AppEnv } from '../../../app-env.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../../http/body-guard.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { adminSecurity } from '../../../http/security.js';
import { credentialKeyParams, credentialResponseSchema, toCredentialResponse, updateCredentialSchema } from './schema.js';

export function registerUpdateCredential(app: OpenAPIHono<AppEnv>, admin: MiddlewareHandler<AppEnv>) {
  const route = createRoute({
    method: 'patch',
    path: '/admin/v1/credentials/{key}',
    operationId: 'updateCredential',
    tags: ['Admin'],
    summary: 'Change status and/or permissions (applies within 5 seconds)',
    security: adminSecurity,
    middleware: [admin, jsonBodyGuard(SINGLE_BODY_LIMIT)],
    request: {
      params: credentialKeyParams,
      body: { content: { 'application/json': { schema: updateCredentialSchema } }, required: true },
    },
    responses: {
      200: {
        description: 'The credential, without secret.',
        content: { 'application/json': { schema: credentialResponseSchema } },
      },
      ...errorResponses(400, 401, 404, 413, 415, 500),
    },
  });
  app.openapi(route, async (c) => {
    const { status, permissions } = c.req.valid('json');
    const credential = await updateCredential(c.var.deps, { key: c.req.valid('param').key, status, permissions });
    // This process applies the change at once; other processes within the credential cache's TTL.
    c.var.deps.credentials.invalidate(credential.key);
    return ok(c, toCredentialResponse(credential));
  });
}
