import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { checkReadiness } from '../../../core/health/check-readiness.js';
import type { AppEnv } from '../../app-env.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { AppError } from '../../http/errors.js';
import { statusSchema, toStatusResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/readyz',
  operationId: 'getReadiness',
  // Probes call it without credentials.
  security: [],
  tags: ['Operations'],
  summary: 'Readiness: 200 when Postgres and Redis answer; 503 otherwise or while shutting down',
  responses: {
    200: { description: 'Ready.', content: { 'application/json': { schema: statusSchema } } },
    ...errorResponses(503),
  },
});

export function registerReadiness(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const { deps } = c.var;
    if (deps.isShuttingDown()) throw new AppError('unavailable', 'Shutting down');
    const { unreachable } = await checkReadiness(deps);
    if (unreachable.length > 0) throw new AppError('unavailable', `Not ready: ${unreachable.join(' and ')} unreachable`);
    return ok(c, toStatusResponse('ready'));
  });
}
