import { createRoute } from '@hono/zod-openapi';
import { ok } from '../../http/envelope.js';
import { defineRoute } from '../route-entry.js';
import { statusSchema, toStatusResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/healthz',
  operationId: 'getLiveness',
  tags: ['Operations'],
  summary: 'Liveness: 200 while the process runs',
  responses: { 200: { description: 'Alive.', content: { 'application/json': { schema: statusSchema } } } },
});

export const getLivenessRoute = defineRoute({ access: 'public', route, handler: (c) => ok(c, toStatusResponse('ok')) });
