import { z } from '@hono/zod-openapi';
import type { Page } from '../../../core/page.js';
import type { CreatedEndpoint, WebhookEndpoint } from '../../../core/webhooks/endpoints.js';
import type { WebhookMessageView } from '../../../core/webhooks/messages.js';
import { WEBHOOK_MESSAGE_STATUSES } from '../../../shared/db/schema/index.js';
import { formatIsoMillis } from '../../../shared/domain/timestamp.js';
import { WEBHOOK_EVENT_TYPES } from '../../../shared/domain/webhooks.js';
import { successEnvelope } from '../../http/envelope.js';
import { hasMoreField, pageQueryShape } from '../../http/pagination.js';
import { isoMillis } from '../shared-shapes.js';

const ENDPOINT_ID = '5b1e7c2a-9d3f-4e8a-b6c1-0f2d3e4a5b6c';
const MESSAGE_ID = 'msg_2f9c1b7e4d6a4c0e8b3a5d7f9e1c2b4a';
const eventType = z.enum(WEBHOOK_EVENT_TYPES);
const messageId = z.string().regex(/^msg_[0-9a-f]{32}$/, 'must be a message id (msg_ and 32 hex digits)');

export const createEndpointSchema = z
  .strictObject({
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .openapi({
        description:
          'Where messages are POSTed: `https://`, whose host is not a loopback, private or link-local address (the operator may allow `http://` and private hosts for development).',
        example: 'https://example.com/webhooks/quest-chains',
      }),
    event_types: z.array(eventType).min(1).max(WEBHOOK_EVENT_TYPES.length).optional().openapi({
      description:
        'The types to receive; every type you may receive when omitted. Advertisers receive `task.completed` and `chain.completed` only.',
    }),
  })
  .openapi('CreateWebhookEndpoint', {
    example: { url: 'https://example.com/webhooks/quest-chains', event_types: ['task.completed', 'chain.completed'] },
  });

const endpointShape = {
  id: z.uuid(),
  url: z.string(),
  event_types: z.array(eventType),
  status: z.literal('enabled'),
  created_at: isoMillis(),
};
const endpointExample = {
  id: ENDPOINT_ID,
  url: 'https://example.com/webhooks/quest-chains',
  event_types: ['task.completed', 'chain.completed'],
  status: 'enabled',
  created_at: '2026-01-02T03:04:05.678Z',
};

const endpointSchema = z.object(endpointShape).openapi('WebhookEndpoint', { example: endpointExample });

const createdEndpointSchema = z
  .object({
    ...endpointShape,
    secret: z.string().openapi({
      description:
        'The signing secret (`whsec_` + base64): shown in this answer only. Keep it on your server; verify each message with it.',
    }),
  })
  .openapi('CreatedWebhookEndpoint', {
    example: { ...endpointExample, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0LzDHqzUaOk=' },
  });

const attemptSchema = z
  .object({
    at: isoMillis(),
    status_code: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The receiver's HTTP status; null when none came (refused, timed out)." }),
    error: z.string().nullable().openapi({ description: 'Why the attempt failed; null when it succeeded.' }),
    duration_ms: z.number().int(),
  })
  .openapi('WebhookAttempt');

const messageSchema = z
  .object({
    id: z.string().openapi({
      description: 'The message id: the `webhook-id` header and the body `id`, the same on every retry and replay.',
      example: MESSAGE_ID,
    }),
    type: eventType,
    created_at: isoMillis(),
    status: z
      .enum(WEBHOOK_MESSAGE_STATUSES)
      .openapi({ description: '`failed`: every scheduled attempt failed (a replay may still deliver it).' }),
    attempts: z.array(attemptSchema),
  })
  .openapi('WebhookMessage', {
    example: {
      id: MESSAGE_ID,
      type: 'task.completed',
      created_at: '2026-01-02T03:04:05.678Z',
      status: 'delivered',
      attempts: [
        { at: '2026-01-02T03:04:05.690Z', status_code: 500, error: 'HTTP 500', duration_ms: 41 },
        { at: '2026-01-02T03:04:10.702Z', status_code: 200, error: null, duration_ms: 12 },
      ],
    },
  });

export const endpointParams = z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' }, example: ENDPOINT_ID }) });
export const messageParams = endpointParams.extend({
  message_id: messageId.openapi({ param: { name: 'message_id', in: 'path' }, example: MESSAGE_ID }),
});

export const messagesQuery = z.object({
  status: z
    .enum(WEBHOOK_MESSAGE_STATUSES)
    .optional()
    .openapi({ param: { name: 'status', in: 'query' }, description: 'Only messages in this status.' }),
  ...pageQueryShape(messageId, "the last message's `id`"),
});

export const createEndpointResponseSchema = successEnvelope(createdEndpointSchema);
export const listEndpointsResponseSchema = successEnvelope(z.object({ endpoints: z.array(endpointSchema) }));
export const deleteEndpointResponseSchema = successEnvelope(
  z
    .object({ id: z.uuid(), deleted: z.literal(true) })
    .openapi('DeletedWebhookEndpoint', { example: { id: ENDPOINT_ID, deleted: true } }),
);
export const listMessagesResponseSchema = successEnvelope(
  z.object({ messages: z.array(messageSchema), has_more: hasMoreField() }),
);
export const replayResponseSchema = successEnvelope(
  z
    .object({ id: z.string(), queued: z.literal(true) })
    .openapi('ReplayedWebhookMessage', { example: { id: MESSAGE_ID, queued: true } }),
);

type Data<S extends z.ZodType<{ data: unknown }>> = z.infer<S>['data'];

const toEndpoint = (endpoint: WebhookEndpoint | CreatedEndpoint) => ({
  id: endpoint.id,
  url: endpoint.url,
  event_types: endpoint.eventTypes as z.infer<typeof eventType>[],
  status: 'enabled' as const,
  created_at: formatIsoMillis(endpoint.createdUs),
});

export const toCreatedEndpointResponse = (endpoint: CreatedEndpoint): Data<typeof createEndpointResponseSchema> => ({
  ...toEndpoint(endpoint),
  secret: endpoint.secret,
});

export const toEndpointsResponse = (endpoints: WebhookEndpoint[]): Data<typeof listEndpointsResponseSchema> => ({
  endpoints: endpoints.map(toEndpoint),
});

export const toMessagesResponse = (page: Page<WebhookMessageView>): Data<typeof listMessagesResponseSchema> => ({
  has_more: page.hasMore,
  messages: page.items.map((message) => ({
    id: message.id,
    type: message.type as z.infer<typeof eventType>,
    created_at: formatIsoMillis(message.createdUs),
    status: message.status,
    attempts: message.attempts.map((a) => ({
      at: formatIsoMillis(a.atUs),
      status_code: a.statusCode,
      error: a.error,
      duration_ms: a.durationMs,
    })),
  })),
});
