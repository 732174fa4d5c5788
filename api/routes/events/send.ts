import { createRoute } from '@hono/zod-openapi';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../http/body-guard.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { groupCommitFor } from '../../ingest/group-commit.js';
import { defineRoute } from '../route-entry.js';
import { eventInputSchema, sendEventResponseSchema, toEventInput, toRecordedEventResponse } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/v1/events',
  operationId: 'sendEvent',
  tags: ['Events'],
  summary: 'Record an event about one of your users',
  description:
    'Platform or advertiser credentials (`events:write`). Deduplicated on (your provider, user_id, event_type, instant of timestamp): a repeat answers 200 with `status: duplicate` and the stored event. Answered once the event is durably stored; matching happens asynchronously.',
  middleware: [jsonBodyGuard(SINGLE_BODY_LIMIT)] as const,
  request: { body: { content: { 'application/json': { schema: eventInputSchema } }, required: true } },
  responses: {
    200: { description: 'Recorded (or existing) event.', content: { 'application/json': { schema: sendEventResponseSchema } } },
    ...errorResponses(400, 413, 415, 500),
  },
});

export const sendEventRoute = defineRoute({
  access: { operation: 'writeEvents' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const input = toEventInput(c.req.valid('json'));
    // Shares one statement and one enqueue with the other events arriving now (api/ingest/group-commit.ts).
    const event = await groupCommitFor(deps).submit({ providerId: caller.providerId, input, requestId: c.var.requestId });
    deps.metrics.countEvents(event.status);
    return ok(c, toRecordedEventResponse(input, event));
  },
});
