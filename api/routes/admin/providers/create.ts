import { createRoute } from '@hono/zod-openapi';
import { createProvider } from '../../../../core/admin/providers.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../../http/body-guard.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { defineRoute } from '../../route-entry.js';
import { createProviderSchema, providerResponseSchema, toProviderResponse } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/admin/v1/providers',
  operationId: 'createProvider',
  tags: ['Admin'],
  summary: 'Create a platform or advertiser',
  middleware: [jsonBodyGuard(SINGLE_BODY_LIMIT)],
  request: { body: { content: { 'application/json': { schema: createProviderSchema } }, required: true } },
  responses: {
    200: { description: 'The provider.', content: { 'application/json': { schema: providerResponseSchema } } },
    ...errorResponses(400, 404, 413, 415, 500),
  },
});

export const createProviderRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => {
    const provider = await createProvider(c.var.deps, c.req.valid('json'));
    return ok(c, toProviderResponse(provider));
  },
});
