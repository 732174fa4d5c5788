import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { createProvider, listProviders, providerView, setProviderStatus } from '../../../../shared/services/admin/providers.js';
import type { AppEnv } from '../../../app-env.js';
import { requireAdmin } from '../../../auth/admin-auth.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../../http/body-guard.js';
import { errorResponses } from '../../../http/envelope.js';
import { adminSecurity } from '../../../http/security.js';
import {
  createProviderSchema,
  providerIdParams,
  providerListResponseSchema,
  providerResponseSchema,
  updateProviderSchema,
} from './schema.js';

export function registerAdminProviderRoutes(app: OpenAPIHono<AppEnv>, adminToken: string | undefined) {
  const admin = requireAdmin(adminToken);
  const withBody = [admin, jsonBodyGuard(SINGLE_BODY_LIMIT)];

  const create = createRoute({
    method: 'post',
    path: '/admin/v1/providers',
    tags: ['Admin'],
    summary: 'Create a platform or advertiser',
    security: adminSecurity,
    middleware: withBody,
    request: { body: { content: { 'application/json': { schema: createProviderSchema } }, required: true } },
    responses: {
      200: { description: 'The provider.', content: { 'application/json': { schema: providerResponseSchema } } },
      ...errorResponses(400, 401, 404, 413, 415, 500),
    },
  });
  app.openapi(create, async (c) => {
    const row = await createProvider(c.var.deps.db, c.req.valid('json'));
    return c.json({ success: true as const, data: providerView(row) }, 200);
  });

  const list = createRoute({
    method: 'get',
    path: '/admin/v1/providers',
    tags: ['Admin'],
    summary: 'List providers',
    security: adminSecurity,
    middleware: [admin],
    responses: {
      200: { description: 'Every provider, oldest first.', content: { 'application/json': { schema: providerListResponseSchema } } },
      ...errorResponses(401, 404, 500),
    },
  });
  app.openapi(list, async (c) => {
    const rows = await listProviders(c.var.deps.db);
    return c.json({ success: true as const, data: rows.map(providerView) }, 200);
  });

  const update = createRoute({
    method: 'patch',
    path: '/admin/v1/providers/{id}',
    tags: ['Admin'],
    summary: 'Activate or deactivate a provider (applies to its credentials within 5 seconds)',
    security: adminSecurity,
    middleware: withBody,
    request: { params: providerIdParams, body: { content: { 'application/json': { schema: updateProviderSchema } }, required: true } },
    responses: {
      200: { description: 'The provider.', content: { 'application/json': { schema: providerResponseSchema } } },
      ...errorResponses(400, 401, 404, 413, 415, 500),
    },
  });
  app.openapi(update, async (c) => {
    const row = await setProviderStatus(c.var.deps.db, c.req.valid('param').id, c.req.valid('json').status);
    c.var.deps.credentials.clear();
    return c.json({ success: true as const, data: providerView(row) }, 200);
  });
}
