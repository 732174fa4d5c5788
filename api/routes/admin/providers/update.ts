import { createRoute } from '@hono/zod-openapi';
import { updateProvider } from '../../../../core/admin/providers.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../../http/body-guard.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { defineRoute } from '../../route-entry.js';
import { providerIdParams, providerResponseSchema, toProviderResponse, updateProviderSchema } from './schema.js';

const route = createRoute({
  method: 'patch',
  path: '/admin/v1/providers/{id}',
  operationId: 'updateProvider',
  tags: ['Admin'],
  summary: 'Activate or deactivate a provider (applies to its credentials within 5 seconds)',
  middleware: [jsonBodyGuard(SINGLE_BODY_LIMIT)],
  request: {
    params: providerIdParams,
    body: { content: { 'application/json': { schema: updateProviderSchema } }, required: true },
  },
  responses: {
    200: { description: 'The provider.', content: { 'application/json': { schema: providerResponseSchema } } },
    ...errorResponses(400, 404, 413, 415, 500),
  },
});

export const updateProviderRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => {
    const provider = await updateProvider(c.var.deps, {
      providerId: c.req.valid('param').id,
      status: c.req.valid('json').status,
    });
    // This process's cached credentials of the provider apply the change at once; other processes within the TTL.
    c.var.deps.credentials.clear();
    return ok(c, toProviderResponse(provider));
  },
});
