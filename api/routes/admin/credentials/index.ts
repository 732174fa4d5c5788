import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { createCredential, listCredentials, updateCredential } from '../../../../shared/services/admin/credentials.js';
import { findProvider } from '../../../../shared/services/admin/providers.js';
import { notFound } from '../../../../shared/errors.js';
import type { AppEnv } from '../../../app-env.js';
import { requireAdmin } from '../../../auth/admin-auth.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../../http/body-guard.js';
import { errorResponses } from '../../../http/envelope.js';
import { adminSecurity } from '../../../http/security.js';
import { providerIdParams } from '../providers/schema.js';
import {
  createCredentialSchema,
  createdCredentialResponseSchema,
  credentialKeyParams,
  credentialListResponseSchema,
  credentialResponseSchema,
  updateCredentialSchema,
} from './schema.js';

export function registerAdminCredentialRoutes(app: OpenAPIHono<AppEnv>, adminToken: string | undefined) {
  const admin = requireAdmin(adminToken);
  const withBody = [admin, jsonBodyGuard(SINGLE_BODY_LIMIT)];

  const create = createRoute({
    method: 'post',
    path: '/admin/v1/providers/{id}/credentials',
    tags: ['Admin'],
    summary: 'Create a credential; the secret is returned once',
    security: adminSecurity,
    middleware: withBody,
    request: { params: providerIdParams, body: { content: { 'application/json': { schema: createCredentialSchema } }, required: true } },
    responses: {
      200: { description: 'The credential with its secret.', content: { 'application/json': { schema: createdCredentialResponseSchema } } },
      ...errorResponses(400, 401, 404, 413, 415, 500),
    },
  });
  app.openapi(create, async (c) => {
    const created = await createCredential(c.var.deps.db, c.req.valid('param').id, c.req.valid('json').permissions);
    return c.json({ success: true as const, data: created }, 200);
  });

  const list = createRoute({
    method: 'get',
    path: '/admin/v1/providers/{id}/credentials',
    tags: ['Admin'],
    summary: "List a provider's credentials (never their secrets)",
    security: adminSecurity,
    middleware: [admin],
    request: { params: providerIdParams },
    responses: {
      200: { description: 'Credentials.', content: { 'application/json': { schema: credentialListResponseSchema } } },
      ...errorResponses(400, 401, 404, 500),
    },
  });
  app.openapi(list, async (c) => {
    const { id } = c.req.valid('param');
    if (!(await findProvider(c.var.deps.db, id))) throw notFound(`Provider ${id} not found`);
    return c.json({ success: true as const, data: await listCredentials(c.var.deps.db, id) }, 200);
  });

  const update = createRoute({
    method: 'patch',
    path: '/admin/v1/credentials/{key}',
    tags: ['Admin'],
    summary: 'Change status and/or permissions (applies within 5 seconds)',
    security: adminSecurity,
    middleware: withBody,
    request: { params: credentialKeyParams, body: { content: { 'application/json': { schema: updateCredentialSchema } }, required: true } },
    responses: {
      200: { description: 'The credential, without secret.', content: { 'application/json': { schema: credentialResponseSchema } } },
      ...errorResponses(400, 401, 404, 413, 415, 500),
    },
  });
  app.openapi(update, async (c) => {
    const view = await updateCredential(c.var.deps.db, c.req.valid('param').key, c.req.valid('json'));
    c.var.deps.credentials.invalidate(view.key);
    return c.json({ success: true as const, data: view }, 200);
  });
}
