import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { deleteEndpoint } from '../../../core/webhooks/endpoints.js';
import type { AppEnv } from '../../app-env.js';
import { requireOperation } from '../../auth/authenticate.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { apiKeySecurity } from '../../http/security.js';
import { deleteEndpointResponseSchema, endpointParams } from './schema.js';

const route = createRoute({
  method: 'delete',
  path: '/v1/webhook-endpoints/{id}',
  operationId: 'deleteWebhookEndpoint',
  tags: ['Webhooks'],
  summary: 'Delete a webhook endpoint',
  description:
    "Platform or advertiser credentials (`webhooks:manage`). Nothing more is sent to it, retries included. Another provider's endpoint answers 404, as an unknown one.",
  security: apiKeySecurity,
  middleware: [requireOperation('manageWebhooks')] as const,
  request: { params: endpointParams },
  responses: {
    200: { description: 'Deleted.', content: { 'application/json': { schema: deleteEndpointResponseSchema } } },
    ...errorResponses(400, 401, 403, 404, 500),
  },
});

export function registerDeleteWebhookEndpoint(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const { deps, caller } = c.var;
    const { id } = await deleteEndpoint(deps, { providerId: caller.providerId, endpointId: c.req.valid('param').id });
    return ok(c, { id, deleted: true as const });
  });
}
