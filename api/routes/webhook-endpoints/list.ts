import { createRoute } from '@hono/zod-openapi';
import { listEndpoints } from '../../../core/webhooks/endpoints.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { defineRoute } from '../route-entry.js';
import { listEndpointsResponseSchema, toEndpointsResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/v1/webhook-endpoints',
  operationId: 'listWebhookEndpoints',
  tags: ['Webhooks'],
  summary: 'List your webhook endpoints',
  description: 'Platform or advertiser credentials (`webhooks:manage`). At most 10, oldest first; secrets are never shown again.',
  responses: {
    200: { description: 'Your endpoints.', content: { 'application/json': { schema: listEndpointsResponseSchema } } },
    ...errorResponses(500),
  },
});

export const listWebhookEndpointsRoute = defineRoute({
  access: { operation: 'manageWebhooks' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    return ok(c, toEndpointsResponse(await listEndpoints(deps, { providerId: caller.providerId })));
  },
});
