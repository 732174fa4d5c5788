import { createRoute } from '@hono/zod-openapi';
import { getBacktest } from '../../../../core/backtests/requests.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { defineRoute } from '../../route-entry.js';
import { backtestIdParams, backtestResponseSchema, toBacktestResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/admin/v1/backtests/{id}',
  operationId: 'getBacktest',
  tags: ['Admin'],
  summary: "A backtest's progress and, once completed, its result",
  description:
    'Any API replica answers. A running backtest whose process stopped is resumed by the replica that reads it, from the last page of users it finished.',
  request: { params: backtestIdParams },
  responses: {
    200: { description: 'The backtest.', content: { 'application/json': { schema: backtestResponseSchema } } },
    ...errorResponses(400, 404, 500),
  },
});

export const getBacktestRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => {
    const backtest = await getBacktest(c.var.deps, { backtestId: c.req.valid('param').id });
    return ok(c, toBacktestResponse(backtest));
  },
});
