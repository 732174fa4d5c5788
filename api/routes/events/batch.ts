import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { ingestEvents } from '../../../shared/services/events/ingest.js';
import type { AppEnv } from '../../app-env.js';
import { requireOperation } from '../../auth/authenticate.js';
import { BATCH_BODY_LIMIT, jsonBodyGuard } from '../../http/body-guard.js';
import { errorResponses } from '../../http/envelope.js';
import { describeZodError } from '../../http/errors.js';
import { apiKeySecurity } from '../../http/security.js';
import { batchRequestSchema, batchResponseSchema, eventInputSchema, toEventInput } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/v1/events/batch',
  tags: ['Events'],
  summary: 'Record up to 500 events in one call',
  description:
    'Each item is validated and deduplicated on its own; `data.results[i]` answers item i: `received`, `duplicate` or `rejected` with the reason. 400 only when the envelope itself is wrong.',
  security: apiKeySecurity,
  middleware: [requireOperation('writeEvents'), jsonBodyGuard(BATCH_BODY_LIMIT)] as const,
  request: { body: { content: { 'application/json': { schema: batchRequestSchema } }, required: true } },
  responses: {
    200: { description: 'Per-item results in input order.', content: { 'application/json': { schema: batchResponseSchema } } },
    ...errorResponses(400, 401, 403, 413, 415, 500),
  },
});

type ItemResult = { event_id: string; status: 'received' | 'duplicate' } | { status: 'rejected'; error: string };

export function registerSendEventBatch(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const { events } = c.req.valid('json');
    const { deps, caller } = c.var;
    const results: ItemResult[] = new Array(events.length);
    const accepted: { index: number; input: ReturnType<typeof toEventInput> }[] = [];
    events.forEach((item, index) => {
      const parsed = eventInputSchema.safeParse(item);
      if (parsed.success) accepted.push({ index, input: toEventInput(parsed.data) });
      else results[index] = { status: 'rejected', error: describeZodError(parsed.error, 'event') };
    });
    const ingested = await ingestEvents(
      deps,
      caller.providerId,
      accepted.map((item) => item.input),
    );
    accepted.forEach((item, position) => {
      const outcome = ingested[position]!;
      results[item.index] = { event_id: outcome.eventId, status: outcome.status };
    });
    for (const item of results) deps.metrics.countEvents(item.status);
    return c.json({ success: true as const, data: { results } }, 200);
  });
}
