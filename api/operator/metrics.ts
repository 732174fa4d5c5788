import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ApiMetrics } from '../../shared/observability/metrics.js';
import type { AppEnv } from '../app-env.js';

/**
 * Prometheus scrape endpoint. Deliberately outside the OpenAPI document and
 * without credentials (scrapers rarely carry any): operators keep it off the
 * public listener, see docs/operations.md.
 */
export function registerMetricsRoute(app: OpenAPIHono<AppEnv>, metrics: ApiMetrics) {
  app.get('/metrics', async (c) => {
    const { contentType, body } = await metrics.exposition();
    return c.body(body, 200, { 'content-type': contentType, 'cache-control': 'no-store' });
  });
}
