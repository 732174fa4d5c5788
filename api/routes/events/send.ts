import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { requireOperation } from '../../auth/authenticate.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../http/body-guard.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { apiKeySecurity } from '../../http/security.js';
import { groupCommitFor } from '../../ingest/group-commit.js';
import { eventInputSchema, sendEventResponseSchema, toEventInput, toRecordedEventResponse } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/v1/events',
  operationId: 'sendEvent',
  tags: ['Events'],
  summary: 'Record an event about one of your users',
  description:
    'Platform or advertiser credentials (`events:write`). Deduplicated on (your provider, user_id, event_type, instant of timestamp): a repeat answers 200 with `status: duplicate` and the stored event. Answered once the event is durably stored; matching happens asynchronously.',
  security: apiKeySecurity,
  middleware: [requireOperation('writeEvents'), jsonBodyGuard(SINGLE_BODY_LIMIT)] as const,
  request: { body: { content: { 'application/json': { schema: eventInputSchema } }, required: true } },
  responses: {
    200: { description: 'Recorded (or existing) event.', content: { 'application/json': { schema: sendEventResponseSchema } } },
    ...errorResponses(400, 401, 403, 413, 415, 500),
  },
});

export function registerSendEvent(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const { deps, caller } = c.var;
    const input = toEventInput(c.req.valid('json'));
    // Shares one statement and one enqueue with the other events arriving now (api/ingest/group-commit.ts).
    const event = await groupCommitFor(deps).submit({ providerId: caller.providerId, input, requestId: c.var.requestId });
    deps.metrics.countEvents(event.status);
    return ok(c, toRecordedEventResponse(input, event));
  });
}
