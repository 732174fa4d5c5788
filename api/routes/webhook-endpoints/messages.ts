import { createRoute } from '@hono/zod-openapi';
import { listMessages } from '../../../core/webhooks/messages.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { toPageRequest } from '../../http/pagination.js';
import { defineRoute } from '../route-entry.js';
import { endpointParams, listMessagesResponseSchema, messagesQuery, toMessagesResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/v1/webhook-endpoints/{id}/messages',
  operationId: 'listWebhookMessages',
  tags: ['Webhooks'],
  summary: "An endpoint's delivery log",
  description:
    'Platform or advertiser credentials (`webhooks:manage`). Messages newest first, each with every attempt (time, HTTP status or error, duration). `pending`: not delivered yet, retries scheduled; `delivered`: a 2xx came within 10 s; `failed`: every scheduled attempt failed.',
  request: { params: endpointParams, query: messagesQuery },
  responses: {
    200: { description: 'A page of messages.', content: { 'application/json': { schema: listMessagesResponseSchema } } },
    ...errorResponses(400, 404, 500),
  },
});

export const listWebhookMessagesRoute = defineRoute({
  access: { operation: 'manageWebhooks' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const query = c.req.valid('query');
    const page = await listMessages(deps, {
      providerId: caller.providerId,
      endpointId: c.req.valid('param').id,
      status: query.status,
      page: toPageRequest(query),
    });
    return ok(c, toMessagesResponse(page));
  },
});
