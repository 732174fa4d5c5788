import { createRoute } from '@hono/zod-openapi';
import { reverseEvents } from '../../../core/events/reverse-events.js';
import { BATCH_BODY_LIMIT, jsonBodyGuard } from '../../http/body-guard.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { defineRoute } from '../route-entry.js';
import { reverseBatchBodySchema, reverseBatchResponseSchema, toReversalItem } from './reverse-schema.js';

const route = createRoute({
  method: 'post',
  path: '/v1/events/reverse',
  operationId: 'reverseEvents',
  tags: ['Events'],
  summary: 'Reverse up to 500 events in one call',
  description:
    'The batch form of POST /v1/events/{event_id}/reverse, in one transaction. `data.results[i]` answers item i: `reversed` (with `already_reversed`) or `rejected` with code `not_found` for an id of no event of yours. 400 when the body is wrong (an id that is not a UUID included).',
  middleware: [jsonBodyGuard(BATCH_BODY_LIMIT)] as const,
  request: { body: { content: { 'application/json': { schema: reverseBatchBodySchema } }, required: true } },
  responses: {
    200: {
      description: 'Per-item results in input order.',
      content: { 'application/json': { schema: reverseBatchResponseSchema } },
    },
    ...errorResponses(400, 413, 415, 500),
  },
});

export const reverseEventsRoute = defineRoute({
  access: { operation: 'writeEvents' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const { events } = c.req.valid('json');
    const results = await reverseEvents(deps, {
      providerId: caller.providerId,
      reversals: events.map((e) => ({ eventId: e.event_id, reason: e.reason })),
    });
    return ok(c, { results: results.map(toReversalItem) });
  },
});
