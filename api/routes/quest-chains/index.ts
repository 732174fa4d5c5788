import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { createErrorHandler, notFoundHandler, validationHook } from '../../http/errors.js';
import { explainRoute, registerExplainProgress } from './explain.js';
import { registerReadActiveChains } from './read-active.js';

export function questChainsRoutes(app: OpenAPIHono<AppEnv>) {
  registerReadActiveChains(app);
  mountExplain(app);
}

/**
 * Hono's RegExpRouter cannot hold /v1/quest-chains/active/{platformUserId}
 * beside /v1/quest-chains/{questChainId}/users/{platformUserId}/explain (a
 * static segment and a parameter at one depth, each with more after it): the
 * whole app would fall back to the slower TrieRouter for every request. It
 * does take a wildcard there, so explain gets an app of its own behind
 * GET /v1/quest-chains/* (registered after the active read, which answers its
 * own paths first), as the queue dashboard does; the route still belongs to
 * the main document. The outer request's context (deps, request id) is
 * handed over through the environment.
 */
function mountExplain(app: OpenAPIHono<AppEnv>) {
  const explain = new OpenAPIHono<AppEnv & { Bindings: { outer: AppEnv['Variables'] } }>({ defaultHook: validationHook });
  explain.use('*', async (c, next) => {
    c.set('deps', c.env.outer.deps);
    c.set('requestId', c.env.outer.requestId);
    await next();
  });
  explain.onError((error, c) => createErrorHandler(c.var.deps.logger)(error, c));
  explain.notFound(notFoundHandler);
  registerExplainProgress(explain);
  // As app.openapi() documents a route: without its middleware, which is code, not document.
  const { middleware: _middleware, ...documented } = explainRoute;
  app.openAPIRegistry.registerPath(documented);
  app.get('/v1/quest-chains/*', (c) => explain.fetch(c.req.raw, { ...(c.env as object), outer: c.var }));
}
