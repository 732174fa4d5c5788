import { createServer, type Server } from 'node:http';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ApiMetrics } from '../../shared/observability/metrics.js';
import type { AppDeps, AppEnv } from '../app-env.js';
import { requireAdmin } from '../auth/admin-auth.js';

/**
 * Prometheus scrape endpoint, outside the OpenAPI document. Never open on the
 * public port (docs/operations.md, "Metrics"): with METRICS_PORT set, main.ts
 * serves it on that internal port (startMetricsServer) and the public port has
 * no /metrics at all; without it, /metrics on the public port asks for the
 * admin token, like /admin (404 when no ADMIN_TOKEN is configured).
 */
export function registerMetricsRoute(app: OpenAPIHono<AppEnv>, deps: Pick<AppDeps, 'metrics' | 'config'>) {
  if (deps.config.METRICS_PORT !== undefined) return;
  app.get('/metrics', requireAdmin(deps.config.ADMIN_TOKEN), async (c) => {
    const { contentType, body } = await deps.metrics.exposition();
    return c.body(body, 200, { 'content-type': contentType, 'cache-control': 'no-store' });
  });
}

/** The internal metrics listener: GET /metrics without credentials, nothing else. */
export function startMetricsServer(
  metrics: Pick<ApiMetrics, 'exposition'>,
  options: { port: number; host: string },
): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ success: false, error: `No route for ${request.method} ${path}`, code: 'not_found' }));
      return;
    }
    metrics.exposition().then(
      ({ contentType, body }) => {
        response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        response.end(body);
      },
      () => {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ success: false, error: 'metrics unavailable', code: 'internal' }));
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve(server));
  });
}
