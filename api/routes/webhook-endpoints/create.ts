import { createRoute } from '@hono/zod-openapi';
import { createEndpoint } from '../../../core/webhooks/endpoints.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../http/body-guard.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { defineRoute } from '../route-entry.js';
import { createEndpointResponseSchema, createEndpointSchema, toCreatedEndpointResponse } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/v1/webhook-endpoints',
  operationId: 'createWebhookEndpoint',
  tags: ['Webhooks'],
  summary: 'Create a webhook endpoint',
  description:
    'Platform or advertiser credentials (`webhooks:manage`). Answers the signing `secret` once. 400 `webhook_url_refused` for a URL that is not `https://` or whose host is (or resolves to) a loopback, private or link-local address; 400 `webhook_endpoint_limit` past 10 endpoints.',
  middleware: [jsonBodyGuard(SINGLE_BODY_LIMIT)] as const,
  request: { body: { content: { 'application/json': { schema: createEndpointSchema } }, required: true } },
  responses: {
    200: {
      description: 'The endpoint, with its signing secret (shown this once).',
      content: { 'application/json': { schema: createEndpointResponseSchema } },
    },
    ...errorResponses(400, 413, 415, 500),
  },
});

export const createWebhookEndpointRoute = defineRoute({
  access: { operation: 'manageWebhooks' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const body = c.req.valid('json');
    const created = await createEndpoint(
      { db: deps.db, urlPolicy: { allowHttp: deps.config.WEBHOOK_ALLOW_HTTP, allowPrivate: deps.config.WEBHOOK_ALLOW_PRIVATE } },
      { providerId: caller.providerId, providerType: caller.providerType, url: body.url, eventTypes: body.event_types },
    );
    return ok(c, toCreatedEndpointResponse(created));
  },
});
