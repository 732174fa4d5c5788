import { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { Config } from '../../shared/config.js';
import type { AppEnv } from '../app-env.js';
import { requireAdmin } from '../auth/admin-auth.js';
import { requireOperation } from '../auth/authenticate.js';
import { createErrorHandler, notFoundHandler, validationHook } from '../http/errors.js';
import { planMounts } from './mount-plan.js';
import { type Access, documentedRoute, honoPath, type RouteEntry } from './route-entry.js';

type Guards = (access: Access) => MiddlewareHandler<AppEnv>[];

/**
 * Mounts the route table on the app. The documents list the routes in the
 * table's order (within each tag, api/operator/openapi-documents.ts). Each
 * route runs its access guard, then its own middleware (body guard), then its
 * validators and handler, so §1's order holds: 401, 403, then 413, 415, 400.
 * Where Hono's RegExpRouter could not hold a route beside its neighbours,
 * the route goes behind a wildcard (./mount-plan.ts), registered after every
 * route the main app holds so that those answer their own paths first.
 */
export function mountRoutes(
  app: OpenAPIHono<AppEnv>,
  table: readonly RouteEntry[],
  config: Pick<Config, 'ADMIN_TOKEN' | 'LIVE_ALLOWED_ORIGINS'>,
) {
  for (const entry of table) app.openAPIRegistry.registerPath(documentedRoute(entry));
  for (const entry of table) if (entry.access === 'live-token') app.use(honoPath(entry.route), liveCors(config));
  mount(app, table, accessGuards(config.ADMIN_TOKEN));
}

function mount(app: OpenAPIHono<AppEnv>, entries: readonly RouteEntry[], guards: Guards) {
  const plan = planMounts(entries);
  for (const entry of plan.direct) register(app, entry, guards);
  for (const group of plan.behindWildcards) {
    const sub = wildcardApp();
    mount(sub, group.entries, guards);
    app.on(group.method.toUpperCase(), group.wildcard, (c) => sub.fetch(c.req.raw, { ...(c.env as object), outer: c.var }));
  }
}

function register(app: OpenAPIHono<AppEnv>, entry: RouteEntry, guards: Guards) {
  const { route, handler } = entry;
  const middleware = [...guards(entry.access), ...(route.middleware === undefined ? [] : [route.middleware].flat())];
  // Documented once, in table order, by mountRoutes: hidden here.
  if (entry.validated) app.openapi({ ...route, middleware, hide: true }, handler);
  else app.on(route.method.toUpperCase(), [honoPath(route)], ...middleware, handler);
}

/** The guard each access runs before the route: authentication and authorization, or nothing. */
function accessGuards(adminToken: string | undefined): Guards {
  const admin = requireAdmin(adminToken);
  return (access) => {
    if (typeof access === 'object') return [requireOperation(access.operation)];
    return access === 'admin' ? [admin] : [];
  };
}

/**
 * An app of its own for routes behind a wildcard: the same validation hook
 * and error answers, and the outer request's variables (deps, request id)
 * handed over through the environment.
 */
function wildcardApp() {
  const sub = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  sub.use('*', async (c, next) => {
    const { outer } = c.env as unknown as { outer: AppEnv['Variables'] };
    for (const [key, value] of Object.entries(outer)) c.set(key as never, value as never);
    await next();
  });
  sub.onError((error, c) => createErrorHandler(c.var.deps.logger)(error, c));
  sub.notFound(notFoundHandler);
  return sub;
}

/**
 * Browser pages on the platform's own origin open a live-token route (product
 * rules §8), so it answers CORS for LIVE_ALLOWED_ORIGINS: `*` by default,
 * since the token in the URL is the only credential and no cookie is sent.
 * The preflight (OPTIONS) allows Last-Event-ID, which a reconnecting
 * EventSource sends and which is not a CORS-safelisted header.
 */
const liveCors = (config: Pick<Config, 'LIVE_ALLOWED_ORIGINS'>) =>
  cors({
    origin: config.LIVE_ALLOWED_ORIGINS,
    allowMethods: ['GET', 'OPTIONS'],
    allowHeaders: ['Last-Event-ID', 'Cache-Control'],
    maxAge: 600,
  });
