import { createRoute } from '@hono/zod-openapi';
import { checkReadiness } from '../../../core/health/check-readiness.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { AppError } from '../../http/errors.js';
import { defineRoute } from '../route-entry.js';
import { statusSchema, toStatusResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/readyz',
  operationId: 'getReadiness',
  tags: ['Operations'],
  summary: 'Readiness: 200 when Postgres and Redis answer; 503 otherwise or while shutting down',
  responses: {
    200: { description: 'Ready.', content: { 'application/json': { schema: statusSchema } } },
    ...errorResponses(503),
  },
});

export const getReadinessRoute = defineRoute({
  access: 'public',
  route,
  handler: async (c) => {
    const { deps } = c.var;
    if (deps.isShuttingDown()) throw new AppError('unavailable', 'Shutting down');
    const { unreachable } = await checkReadiness(deps);
    if (unreachable.length > 0) throw new AppError('unavailable', `Not ready: ${unreachable.join(' and ')} unreachable`);
    return ok(c, toStatusResponse('ready'));
  },
});
