import { createRoute } from '@hono/zod-openapi';
import { reverseEvents } from '../../../core/events/reverse-events.js';
import { notFound } from '../../../shared/errors.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../http/body-guard.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { defineRoute } from '../route-entry.js';
import { notYours, reverseBodySchema, reverseParams, reverseResponseSchema, toReversedEvent } from './reverse-schema.js';

const route = createRoute({
  method: 'post',
  path: '/v1/events/{event_id}/reverse',
  operationId: 'reverseEvent',
  tags: ['Events'],
  summary: 'Reverse an event (a refund, a chargeback)',
  description:
    "The event's own sender (`events:write`). From now on the event counts for nothing: the user's progress is recomputed as if it had never arrived, and what only it completed is undone, except a task whose reward was claimed (kept, and the claim marked `reversed`). Idempotent: a second call answers 200 with `already_reversed: true`. An event that is not yours, or none: 404. See docs/reversals.md.",
  middleware: [jsonBodyGuard(SINGLE_BODY_LIMIT, { optional: true })] as const,
  request: { params: reverseParams, body: { content: { 'application/json': { schema: reverseBodySchema } }, required: false } },
  responses: {
    200: { description: 'Reversed now, or before.', content: { 'application/json': { schema: reverseResponseSchema } } },
    ...errorResponses(400, 404, 413, 415, 500),
  },
});

export const reverseEventRoute = defineRoute({
  access: { operation: 'writeEvents' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const { event_id: eventId } = c.req.valid('param');
    const [result] = await reverseEvents(deps, {
      providerId: caller.providerId,
      reversals: [{ eventId, reason: c.req.valid('json')?.reason }],
    });
    if (!result?.found) throw notFound(notYours(eventId), 'event_id');
    return ok(c, toReversedEvent(result));
  },
});
