import { OpenAPIHono } from '@hono/zod-openapi';
import type { Handler } from 'hono';
import type { AppDeps, AppEnv } from './app-env.js';
import { createErrorHandler, notFoundHandler, validationHook } from './http/errors.js';
import { requestContext } from './http/request-context.js';
import { requestTimeout } from './http/request-timeout.js';
import { mountCampaignPage } from './operator/campaign-page/index.js';
import { registerMetricsRoute } from './operator/metrics.js';
import { registerOpenApiDocuments } from './operator/openapi-documents.js';
import { DASHBOARD_PATH, registerQueueDashboard } from './operator/queue-dashboard/index.js';
import { registerDocsRoutes } from './operator/reference-page.js';
import { mountRoutes } from './routes/mount-routes.js';
import { ROUTE_TABLE } from './routes/table.js';

/**
 * Builds the HTTP app from injected dependencies; opens nothing and listens
 * nowhere (main.ts does). Mounted in this order, for these reasons: the
 * request context and time limit first, so that every answer has a request
 * id, an access line and a deadline; then the route table, whose own order
 * inside is settled by mountRoutes; then the documents and the operator
 * surfaces, outside the documents, each on paths of its own (the documents
 * are built on first request, when every route is registered).
 */
export function createApp(deps: AppDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use('*', requestContext(deps));
  // No time limit for the live stream (GET /v1/live, open by design) nor for liveness (/healthz waits on nothing:
  // its guard would be a promise and two set operations per probe for a deadline it cannot reach).
  app.use('*', requestTimeout(deps.config.REQUEST_TIMEOUT_MS, ['/v1/live', '/healthz']));
  app.onError(createErrorHandler(deps.logger));
  app.notFound(notFoundHandler);

  // Every published route, each behind the guard of its access (api/routes/table.ts).
  mountRoutes(app, ROUTE_TABLE, deps.config);

  // The two OpenAPI documents: integrators' (/openapi.json) and operators' (/admin/openapi.json).
  registerOpenApiDocuments(app);
  // Operator surfaces, outside the documents: reference pages and Prometheus scrape.
  registerDocsRoutes(app);
  registerMetricsRoute(app, deps);
  mountQueueDashboard(app, deps);
  mountCampaignPage(app, deps);
  return app;
}

/**
 * bull-board's routes (a static segment beside a parameter at the same depth)
 * are more than Hono's RegExpRouter takes: registered on the main app, they
 * would send every request through the slower TrieRouter. So the dashboard
 * gets an app of its own (same error handling), reached through one wildcard.
 */
function mountQueueDashboard(app: OpenAPIHono<AppEnv>, deps: AppDeps) {
  const dashboard = new OpenAPIHono<AppEnv>();
  dashboard.onError(createErrorHandler(deps.logger));
  dashboard.notFound(notFoundHandler);
  registerQueueDashboard(dashboard, deps);
  const forward: Handler<AppEnv> = (c) => dashboard.fetch(c.req.raw, c.env);
  app.all(DASHBOARD_PATH, forward);
  app.all(`${DASHBOARD_PATH}/*`, forward);
}
