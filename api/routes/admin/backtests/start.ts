import { createRoute } from '@hono/zod-openapi';
import { startBacktest } from '../../../../core/backtests/requests.js';
import { BATCH_BODY_LIMIT, jsonBodyGuard } from '../../../http/body-guard.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { defineRoute } from '../../route-entry.js';
import { createChainSchema, toCreateChainInput } from '../quest-chains/create-schema.js';
import { startedBacktestResponseSchema, toStartedBacktestResponse } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/admin/v1/quest-chains/backtest',
  operationId: 'startQuestChainBacktest',
  tags: ['Admin'],
  summary: 'Backtest a draft chain against the stored events of every registered user',
  description:
    'The body is a chain as for POST /admin/v1/quest-chains, checked the same way (400 naming the field), but not stored; its `status` is ignored. Every registered user of the platform is evaluated against their stored events (platform and linked advertiser) as if the chain had been active, with the same rules as progress. Runs in the background: poll GET /admin/v1/backtests/{id}.',
  middleware: [jsonBodyGuard(BATCH_BODY_LIMIT)],
  request: { body: { content: { 'application/json': { schema: createChainSchema } }, required: true } },
  responses: {
    202: { description: 'Started.', content: { 'application/json': { schema: startedBacktestResponseSchema } } },
    ...errorResponses(400, 404, 413, 415, 500),
  },
});

export const startQuestChainBacktestRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => {
    const backtest = await startBacktest(c.var.deps, toCreateChainInput(c.req.valid('json')));
    return ok(c, toStartedBacktestResponse(backtest), 202);
  },
});
