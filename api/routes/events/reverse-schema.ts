import { z } from '@hono/zod-openapi';
import type { ReversalResult } from '../../../core/events/reverse-events.js';
import { formatIsoMillis } from '../../../shared/domain/timestamp.js';
import { successEnvelope } from '../../http/envelope.js';
import { isoMillis } from '../shared-shapes.js';

const EVENT_ID = '0b8e6c52-1d3f-4a7e-9b2c-5d6e7f8a9b0c';
const MAX_REVERSALS = 500;

const reason = z
  .string()
  .min(1)
  .max(255)
  .openapi({ description: 'Why, for your records and support (a refund id, "chargeback").', example: 'refund R-1042' });

export const reverseParams = z.object({
  event_id: z.uuid().openapi({ param: { name: 'event_id', in: 'path' }, example: EVENT_ID }),
});

export const reverseBodySchema = z
  .strictObject({ reason: reason.optional() })
  .openapi('EventReversal', { example: { reason: 'refund R-1042' } });

const reversedEventSchema = z
  .object({
    event_id: z.uuid(),
    reversed_at: isoMillis().openapi({ description: 'When the first reversal of this event was recorded.' }),
    reason: z.string().nullable().openapi({ description: "The first reversal's reason." }),
    already_reversed: z.boolean().openapi({ description: 'True when an earlier call had reversed it: nothing changed.' }),
  })
  .openapi('ReversedEvent', {
    example: { event_id: EVENT_ID, reversed_at: '2026-01-05T10:00:00.000Z', reason: 'refund R-1042', already_reversed: false },
  });

export const reverseResponseSchema = successEnvelope(reversedEventSchema);

export const reverseBatchBodySchema = z
  .strictObject({
    events: z
      .array(z.strictObject({ event_id: z.uuid(), reason: reason.optional() }))
      .min(1)
      .max(MAX_REVERSALS),
  })
  .openapi('EventReversalBatch', { example: { events: [{ event_id: EVENT_ID, reason: 'refund R-1042' }] } });

const reversalItemSchema = z
  .union([
    reversedEventSchema.extend({ status: z.literal('reversed') }).openapi({
      example: {
        status: 'reversed',
        event_id: EVENT_ID,
        reversed_at: '2026-01-05T10:00:00.000Z',
        reason: 'refund R-1042',
        already_reversed: false,
      },
    }),
    z.object({
      event_id: z.uuid(),
      status: z.literal('rejected'),
      error: z.string(),
      code: z.literal('not_found'),
    }),
  ])
  .openapi('EventReversalResult', {
    example: {
      status: 'reversed',
      event_id: EVENT_ID,
      reversed_at: '2026-01-05T10:00:00.000Z',
      reason: 'refund R-1042',
      already_reversed: false,
    },
  });

export const reverseBatchResponseSchema = successEnvelope(z.object({ results: z.array(reversalItemSchema) }));

type ReversedEventBody = z.infer<typeof reversedEventSchema>;

export function toReversedEvent(result: Extract<ReversalResult, { found: true }>): ReversedEventBody {
  return {
    event_id: result.eventId,
    reversed_at: formatIsoMillis(result.reversedUs),
    reason: result.reason,
    already_reversed: result.alreadyReversed,
  };
}

export const notYours = (eventId: string) => `No event ${eventId} sent by you`;

export function toReversalItem(result: ReversalResult): z.infer<typeof reversalItemSchema> {
  if (!result.found) return { event_id: result.eventId, status: 'rejected', error: notYours(result.eventId), code: 'not_found' };
  return { ...toReversedEvent(result), status: 'reversed' };
}
