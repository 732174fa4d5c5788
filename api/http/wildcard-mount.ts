import { OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { AppEnv } from '../app-env.js';
import { createErrorHandler, notFoundHandler, validationHook } from './errors.js';

/** The environment of a route mounted behind a wildcard: the outer request's variables ride along. */
export type MountedEnv = AppEnv & { Bindings: { outer: AppEnv['Variables'] } };

/**
 * Hono's RegExpRouter cannot hold a parameter beside a static segment at one
 * depth when the parameter has more after it (/v1/events/batch beside
 * /v1/events/{event_id}/reverse; /v1/quest-chains/active/{id} beside
 * /v1/quest-chains/{id}/users/{id}/explain; /v1/rewards/{platformUserId}
 * beside /v1/rewards/draws/{claim_id}): one such route sends every
 * request of the app through the slower TrieRouter (api/app-router.test.ts).
 * It does take a wildcard there. So the route (or the routes that clash)
 * gets an app of its own behind
 * `method wildcard`, registered after the static routes it sits beside (they
 * answer their own paths first), and stays in the main OpenAPI document. The
 * outer request's context (deps, request id, caller) is handed over through
 * the environment.
 */
export function mountBehindWildcard(
  app: OpenAPIHono<AppEnv>,
  mount: { method: 'get' | 'post'; wildcard: string; routes: RouteConfig[]; register: (sub: OpenAPIHono<MountedEnv>) => void },
) {
  const sub = new OpenAPIHono<MountedEnv>({ defaultHook: validationHook });
  sub.use('*', async (c, next) => {
    for (const [key, value] of Object.entries(c.env.outer)) c.set(key as never, value as never);
    await next();
  });
  sub.onError((error, c) => createErrorHandler(c.var.deps.logger)(error, c));
  sub.notFound(notFoundHandler);
  mount.register(sub);
  // As app.openapi() documents a route: without its middleware, which is code, not document.
  for (const { middleware: _middleware, ...documented } of mount.routes) app.openAPIRegistry.registerPath(documented);
  app[mount.method](mount.wildcard, (c) => sub.fetch(c.req.raw, { ...(c.env as object), outer: c.var }));
}
