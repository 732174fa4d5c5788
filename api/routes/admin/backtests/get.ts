import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { getBacktest } from '../../../../core/backtests/requests.js';
import type { AppEnv } from '../../../app-env.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { adminSecurity } from '../../../http/security.js';
import { backtestIdParams, backtestResponseSchema, toBacktestResponse } from './schema.js';

export function registerGetBacktest(app: OpenAPIHono<AppEnv>, admin: MiddlewareHandler<AppEnv>) {
  const route = createRoute({
    method: 'get',
    path: '/admin/v1/backtests/{id}',
    operationId: 'getBacktest',
    tags: ['Admin'],
    summary: "A backtest's progress and, once completed, its result",
    description:
      'Any API replica answers. A running backtest whose process stopped is resumed by the replica that reads it, from the last page of users it finished.',
    security: adminSecurity,
    middleware: [admin],
    request: { params: backtestIdParams },
    responses: {
      200: { description: 'The backtest.', content: { 'application/json': { schema: backtestResponseSchema } } },
      ...errorResponses(400, 401, 404, 500),
    },
  });
  app.openapi(route, async (c) => {
    const backtest = await getBacktest(c.var.deps, { backtestId: c.req.valid('param').id });
    return ok(c, toBacktestResponse(backtest));
  });
}
