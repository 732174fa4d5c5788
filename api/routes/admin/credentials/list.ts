import { createRoute } from '@hono/zod-openapi';
import { listCredentials } from '../../../../core/admin/credentials.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { toPageRequest } from '../../../http/pagination.js';
import { defineRoute } from '../../route-entry.js';
import { providerIdParams } from '../providers/schema.js';
import { credentialListResponseSchema, credentialsPageQuery, toCredentialListResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/admin/v1/providers/{id}/credentials',
  operationId: 'listCredentials',
  tags: ['Admin'],
  summary: "List a provider's credentials (never their secrets)",
  request: { params: providerIdParams, query: credentialsPageQuery },
  responses: {
    200: { description: 'Credentials.', content: { 'application/json': { schema: credentialListResponseSchema } } },
    ...errorResponses(400, 404, 500),
  },
});

export const listCredentialsRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => {
    const page = toPageRequest(c.req.valid('query'));
    const credentials = await listCredentials(c.var.deps, { providerId: c.req.valid('param').id, page });
    return ok(c, toCredentialListResponse(credentials));
  },
});
