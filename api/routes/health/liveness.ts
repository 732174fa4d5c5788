import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { ok } from '../../http/envelope.js';
import { statusSchema, toStatusResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/healthz',
  operationId: 'getLiveness',
  // Probes call it without credentials.
  security: [],
  tags: ['Operations'],
  summary: 'Liveness: 200 while the process runs',
  responses: { 200: { description: 'Alive.', content: { 'application/json': { schema: statusSchema } } } },
});

export function registerLiveness(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, (c) => ok(c, toStatusResponse('ok')));
}
