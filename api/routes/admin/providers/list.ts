import { createRoute } from '@hono/zod-openapi';
import { listProviders } from '../../../../core/admin/providers.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { toPageRequest } from '../../../http/pagination.js';
import { defineRoute } from '../../route-entry.js';
import { providerListResponseSchema, providersPageQuery, toProviderListResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/admin/v1/providers',
  operationId: 'listProviders',
  tags: ['Admin'],
  summary: 'List providers',
  request: { query: providersPageQuery },
  responses: {
    200: {
      description: 'Every provider, oldest first.',
      content: { 'application/json': { schema: providerListResponseSchema } },
    },
    ...errorResponses(400, 404, 500),
  },
});

export const listProvidersRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => {
    const providers = await listProviders(c.var.deps, toPageRequest(c.req.valid('query')));
    return ok(c, toProviderListResponse(providers));
  },
});
