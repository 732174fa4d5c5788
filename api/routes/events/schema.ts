import { z } from '@hono/zod-openapi';
import { formatIsoMillis, parseUtcTimestamp, UTC_TIMESTAMP_PATTERN } from '../../../shared/domain/timestamp.js';
import { storableObject, storableString } from '../../../shared/validation/json-value.js';
import { successEnvelope } from '../../http/envelope.js';
import { isoMillis } from '../../http/common-schemas.js';
import type { EventInput, IngestedEvent } from '../../use-cases/events/ingest-events.js';

const TIMESTAMP_RULE = 'must be an ISO 8601 UTC date-time (ending Z or +00:00) with at most 6 fractional digits';

export const eventInputSchema = z
  .object({
    user_id: storableString().min(1).max(255).openapi({ description: "The user's id in the caller's own system." }),
    event_type: storableString().min(1).max(100).openapi({ example: 'transaction' }),
    timestamp: z
      .string()
      .regex(UTC_TIMESTAMP_PATTERN, { message: TIMESTAMP_RULE, abort: true })
      .refine((value) => parseUtcTimestamp(value) !== null, TIMESTAMP_RULE)
      .openapi({ example: '2026-01-02T03:04:05.678Z', description: 'When the event occurred (UTC).' }),
    amount: z.number().min(0).nullish(),
    currency: storableString().max(10).nullish().openapi({ example: 'USD' }),
    reference: storableString().max(255).nullish(),
    metadata: storableObject().nullish().openapi({ type: 'object', additionalProperties: true }),
  })
  .openapi('EventInput');

export type EventInputBody = z.infer<typeof eventInputSchema>;

export const recordedEventSchema = z
  .object({
    event_id: z.uuid(),
    user_id: z.string(),
    event_type: z.string(),
    received_at: isoMillis(),
    status: z.enum(['received', 'duplicate']),
  })
  .openapi('RecordedEvent');

export const sendEventResponseSchema = successEnvelope(recordedEventSchema);

export const MAX_BATCH_ITEMS = 500;

export const batchRequestSchema = z
  .object({
    // Items are validated one by one in the handler so one bad item is "rejected", not the whole batch.
    events: z
      .array(z.unknown().openapi({ $ref: '#/components/schemas/EventInput' } as object))
      .min(1)
      .max(MAX_BATCH_ITEMS),
  })
  .openapi('EventBatch');

export const batchItemResultSchema = z
  .union([
    z.object({ event_id: z.uuid(), status: z.enum(['received', 'duplicate']) }),
    z.object({ status: z.literal('rejected'), error: z.string() }),
  ])
  .openapi('EventBatchItemResult');

export const batchResponseSchema = successEnvelope(z.object({ results: z.array(batchItemResultSchema) }));

/** The validated input in the shape the ingest use-case takes. */
export function toEventInput(body: EventInputBody): EventInput {
  return {
    userId: body.user_id,
    eventType: body.event_type,
    occurredUs: parseUtcTimestamp(body.timestamp)!,
    amount: body.amount ?? undefined,
    currency: body.currency ?? undefined,
    reference: body.reference ?? undefined,
    metadata: body.metadata ?? undefined,
  };
}

/** POST /v1/events' answer: the stored (or already stored) event. */
export function toRecordedEventResponse(input: EventInput, event: IngestedEvent): z.infer<typeof sendEventResponseSchema>['data'] {
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

export const toRejectedItemResult = (error: string): BatchItemResult => ({ status: 'rejected', error });

/** POST /v1/events/batch's answer: one result per item, in input order. */
export const toBatchResponse = (results: BatchItemResult[]): z.infer<typeof batchResponseSchema>['data'] => ({ results });
