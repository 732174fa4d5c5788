import { createRoute } from '@hono/zod-openapi';
import { deleteEndpoint } from '../../../core/webhooks/endpoints.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { defineRoute } from '../route-entry.js';
import { deleteEndpointResponseSchema, endpointParams } from './schema.js';

const route = createRoute({
  method: 'delete',
  path: '/v1/webhook-endpoints/{id}',
  operationId: 'deleteWebhookEndpoint',
  tags: ['Webhooks'],
  summary: 'Delete a webhook endpoint',
  description:
    "Platform or advertiser credentials (`webhooks:manage`). Nothing more is sent to it, retries included. Another provider's endpoint answers 404, as an unknown one.",
  request: { params: endpointParams },
  responses: {
    200: { description: 'Deleted.', content: { 'application/json': { schema: deleteEndpointResponseSchema } } },
    ...errorResponses(400, 404, 500),
  },
});

export const deleteWebhookEndpointRoute = defineRoute({
  access: { operation: 'manageWebhooks' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const { id } = await deleteEndpoint(deps, { providerId: caller.providerId, endpointId: c.req.valid('param').id });
    return ok(c, { id, deleted: true as const });
  },
});
