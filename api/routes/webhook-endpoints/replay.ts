import { createRoute } from '@hono/zod-openapi';
import { replayMessage } from '../../../core/webhooks/messages.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { AppError } from '../../http/errors.js';
import { defineRoute } from '../route-entry.js';
import { messageParams, replayResponseSchema } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/v1/webhook-endpoints/{id}/messages/{message_id}/replay',
  operationId: 'replayWebhookMessage',
  tags: ['Webhooks'],
  summary: 'Send a message again now',
  description:
    'Platform or advertiser credentials (`webhooks:manage`). Queues one more attempt now, with the same message id, whatever the status; the attempt appears in the log. 503 when the delivery queue is unreachable (try again).',
  request: { params: messageParams },
  responses: {
    200: { description: 'The attempt is queued.', content: { 'application/json': { schema: replayResponseSchema } } },
    ...errorResponses(400, 404, 500, 503),
  },
});

export const replayWebhookMessageRoute = defineRoute({
  access: { operation: 'manageWebhooks' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const params = c.req.valid('param');
    const { queued } = await replayMessage(deps, {
      providerId: caller.providerId,
      endpointId: params.id,
      messageId: params.message_id,
    });
    if (!queued) throw new AppError('unavailable', 'The delivery queue is unreachable; try again');
    return ok(c, { id: params.message_id, queued: true as const });
  },
});
