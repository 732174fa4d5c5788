import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { listEndpoints } from '../../../core/webhooks/endpoints.js';
import type { AppEnv } from '../../app-env.js';
import { requireOperation } from '../../auth/authenticate.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { apiKeySecurity } from '../../http/security.js';
import { listEndpointsResponseSchema, toEndpointsResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/v1/webhook-endpoints',
  operationId: 'listWebhookEndpoints',
  tags: ['Webhooks'],
  summary: 'List your webhook endpoints',
  description: 'Platform or advertiser credentials (`webhooks:manage`). At most 10, oldest first; secrets are never shown again.',
  security: apiKeySecurity,
  middleware: [requireOperation('manageWebhooks')] as const,
  responses: {
    200: { description: 'Your endpoints.', content: { 'application/json': { schema: listEndpointsResponseSchema } } },
    ...errorResponses(401, 403, 500),
  },
});

export function registerListWebhookEndpoints(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const { deps, caller } = c.var;
    return ok(c, toEndpointsResponse(await listEndpoints(deps, { providerId: caller.providerId })));
  });
}
