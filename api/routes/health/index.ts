import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { errorResponses } from '../../http/envelope.js';
import { AppError } from '../../http/errors.js';

const statusSchema = z.object({ success: z.literal(true), data: z.object({ status: z.string() }) });

const live = createRoute({
  method: 'get',
  path: '/healthz',
  tags: ['Operations'],
  summary: 'Liveness: 200 while the process runs',
  responses: { 200: { description: 'Alive.', content: { 'application/json': { schema: statusSchema } } } },
});

const ready = createRoute({
  method: 'get',
  path: '/readyz',
  tags: ['Operations'],
  summary: 'Readiness: 200 when Postgres and Redis answer; 503 otherwise or while shutting down',
  responses: {
    200: { description: 'Ready.', content: { 'application/json': { schema: statusSchema } } },
    ...errorResponses(503),
  },
});

const PROBE_TIMEOUT_MS = 1000;

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), PROBE_TIMEOUT_MS).unref()),
  ]);
}

export function registerHealthRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(live, (c) => c.json({ success: true as const, data: { status: 'ok' } }, 200));

  app.openapi(ready, async (c) => {
    const { deps } = c.var;
    if (deps.isShuttingDown()) throw new AppError('unavailable', 'Shutting down');
    const [postgres, redis] = await Promise.allSettled([withTimeout(deps.sql`select 1`), withTimeout(deps.redis.ping())]);
    const failing = [postgres.status === 'rejected' ? 'postgres' : null, redis.status === 'rejected' ? 'redis' : null].filter(Boolean);
    if (failing.length > 0) throw new AppError('unavailable', `Not ready: ${failing.join(' and ')} unreachable`);
    return c.json({ success: true as const, data: { status: 'ready' } }, 200);
  });
}
