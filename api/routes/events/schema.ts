import { z } from '@hono/zod-openapi';
import type { EventInput, IngestedEvent } from '../../../core/events/ingest-events.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import { formatIsoMillis, parseUtcTimestamp, UTC_TIMESTAMP_PATTERN } from '../../../shared/domain/timestamp.js';
import { storableObject, storableString } from '../../../shared/validation/json-value.js';
import { successEnvelope } from '../../http/envelope.js';
import type { ValidationFailure } from '../../http/validation-errors.js';
import { isoMillis } from '../shared-shapes.js';

const TIMESTAMP_RULE = 'must be an ISO 8601 UTC date-time (ending Z or +00:00) with at most 6 fractional digits';

// Strict, like every /v1 body: an unknown field (`userId` for `user_id`) is a 400
// naming it, not a silently dropped value. `metadata` stays free-form.
export const eventInputSchema = z
  .strictObject({
    user_id: storableString().min(1).max(255).openapi({ description: "The user's id in the caller's own system." }),
    event_type: storableString().min(1).max(100).openapi({ example: 'transaction' }),
    timestamp: z
      .string()
      .refine((value) => UTC_TIMESTAMP_PATTERN.test(value), { message: TIMESTAMP_RULE, abort: true })
      .refine((value) => parseUtcTimestamp(value) !== null, TIMESTAMP_RULE)
      .openapi({
        format: 'date-time',
        example: '2026-01-02T03:04:05.678Z',
        description:
          'When the event occurred: an ISO 8601 date-time in UTC (ending `Z` or `+00:00`) with up to 6 fractional digits, e.g. `2026-01-02T03:04:05Z` or `2026-01-02T03:04:05.678901+00:00`. Part of the deduplication key.',
      }),
    amount: z.number().min(0).nullish(),
    currency: storableString().max(10).nullish().openapi({ example: 'USD' }),
    reference: storableString().max(255).nullish(),
    metadata: storableObject().nullish().openapi({ type: 'object', additionalProperties: true }),
  })
  .openapi('EventInput', {
    example: {
      user_id: 'user-123',
      event_type: 'transaction',
      timestamp: '2026-01-02T03:04:05.678Z',
      amount: 50,
      currency: 'EUR',
      reference: 'order-1001',
      metadata: { channel: 'web' },
    },
  });

export type EventInputBody = z.infer<typeof eventInputSchema>;

const recordedEventSchema = z
  .object({
    event_id: z.uuid(),
    user_id: z.string(),
    event_type: z.string(),
    received_at: isoMillis(),
    status: z.enum(['received', 'duplicate']),
  })
  .openapi('RecordedEvent', {
    example: {
      event_id: '0b8e6c52-1d3f-4a7e-9b2c-5d6e7f8a9b0c',
      user_id: 'user-123',
      event_type: 'transaction',
      received_at: '2026-01-02T03:04:06.012Z',
      status: 'received',
    },
  });

export const sendEventResponseSchema = successEnvelope(recordedEventSchema);

export const MAX_BATCH_ITEMS = 500;

export const batchRequestSchema = z
  .strictObject({
    // Items are validated one by one in the handler so one bad item is "rejected", not the whole batch.
    // The document says so too: items typed as the strict EventInput would make a
    // validating client refuse the partial batches this route answers 200.
    events: z
      .array(
        z.unknown().openapi({
          description:
            'An event shaped as `EventInput`. Items are checked one by one: an item that is not a valid event (an unknown field, a missing or invalid one, not an object) is answered `rejected` in its result, with `code` and `param`, and the other items are still recorded.',
        }),
      )
      .min(1)
      .max(MAX_BATCH_ITEMS),
  })
  .openapi('EventBatch', {
    example: {
      events: [
        { user_id: 'user-123', event_type: 'registration', timestamp: '2026-01-02T03:00:00Z' },
        { user_id: 'user-123', event_type: 'kyc', timestamp: '2026-01-02T03:02:00.5Z', metadata: { provider: 'idnow' } },
      ],
    },
  });

const batchItemResultSchema = z
  .union([
    z.object({ event_id: z.uuid(), status: z.enum(['received', 'duplicate']) }),
    z.object({
      status: z.literal('rejected'),
      error: z.string(),
      code: z
        .enum(['invalid_field', 'missing_field', 'unknown_field'])
        .openapi({ description: 'As in the error envelope (docs/errors.md).' }),
      param: z.string().optional().openapi({ description: 'The field at fault, from the batch body (`events.3.timestamp`).' }),
    }),
  ])
  .openapi('EventBatchItemResult', { example: { event_id: '0b8e6c52-1d3f-4a7e-9b2c-5d6e7f8a9b0c', status: 'received' } });

export const batchResponseSchema = successEnvelope(z.object({ results: z.array(batchItemResultSchema) }));

/** The validated input in the shape the ingest use-case takes. */
export function toEventInput(body: EventInputBody): EventInput {
  return {
    userId: senderUserId(body.user_id),
    eventType: body.event_type,
    occurredUs: parseUtcTimestamp(body.timestamp)!,
    amount: body.amount ?? undefined,
    currency: body.currency ?? undefined,
    reference: body.reference ?? undefined,
    metadata: body.metadata ?? undefined,
  };
}

/** POST /v1/events' answer: the stored (or already stored) event. */
export function toRecordedEventResponse(
  input: EventInput,
  event: IngestedEvent,
): z.infer<typeof sendEventResponseSchema>['data'] {
  return {
    event_id: event.eventId,
    user_id: input.userId,
    event_type: input.eventType,
    received_at: formatIsoMillis(event.receivedUs),
    status: event.status,
  };
}

export type BatchItemResult = z.infer<typeof batchItemResultSchema>;

export const toBatchItemResult = (event: IngestedEvent): BatchItemResult => ({ event_id: event.eventId, status: event.status });

export const toRejectedItemResult = (failure: ValidationFailure): BatchItemResult => ({
  status: 'rejected',
  error: failure.message,
  code: failure.code,
  ...(failure.param !== undefined ? { param: failure.param } : {}),
});

/** POST /v1/events/batch's answer: one result per item, in input order. */
export const toBatchResponse = (results: BatchItemResult[]): z.infer<typeof batchResponseSchema>['data'] => ({ results });
