import { createRoute } from '@hono/zod-openapi';
import { ingestEvents, type ProviderEvent } from '../../../core/events/ingest-events.js';
import { BATCH_BODY_LIMIT, jsonBodyGuard } from '../../http/body-guard.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { describeValidationFailure } from '../../http/validation-errors.js';
import { defineRoute } from '../route-entry.js';
import {
  type BatchItemResult,
  batchRequestSchema,
  batchResponseSchema,
  eventInputSchema,
  toBatchItemResult,
  toBatchResponse,
  toEventInput,
  toRejectedItemResult,
} from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/v1/events/batch',
  operationId: 'sendEventBatch',
  tags: ['Events'],
  summary: 'Record up to 500 events in one call',
  description:
    'Each item is validated and deduplicated on its own; `data.results[i]` answers item i: `received`, `duplicate` or `rejected` with the reason. 400 only when the envelope itself is wrong.',
  middleware: [jsonBodyGuard(BATCH_BODY_LIMIT)] as const,
  request: { body: { content: { 'application/json': { schema: batchRequestSchema } }, required: true } },
  responses: {
    200: { description: 'Per-item results in input order.', content: { 'application/json': { schema: batchResponseSchema } } },
    ...errorResponses(400, 413, 415, 500),
  },
});

export const sendEventBatchRoute = defineRoute({
  access: { operation: 'writeEvents' },
  route,
  handler: async (c) => {
    const { events } = c.req.valid('json');
    const { deps, caller } = c.var;
    const results: BatchItemResult[] = new Array(events.length);
    const accepted: { index: number; event: ProviderEvent }[] = [];
    events.forEach((item, index) => {
      const parsed = eventInputSchema.safeParse(item);
      if (parsed.success)
        accepted.push({
          index,
          event: { providerId: caller.providerId, input: toEventInput(parsed.data), requestId: c.var.requestId },
        });
      else results[index] = toRejectedItemResult(describeValidationFailure(parsed.error, { value: item, at: `events.${index}` }));
    });
    const ingested = await ingestEvents(deps, { events: accepted.map((item) => item.event) });
    accepted.forEach((item, position) => {
      results[item.index] = toBatchItemResult(ingested[position]!);
    });
    for (const item of results) deps.metrics.countEvents(item.status);
    return ok(c, toBatchResponse(results));
  },
});
