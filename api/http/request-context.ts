import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppDeps, AppEnv } from '../app-env.js';

const REQUEST_ID = /^[\w.-]{1,100}$/;

/**
 * First middleware: injects deps, assigns a request id (the caller's
 * X-Request-Id when sane) and logs one line per request with route, status
 * and duration. Headers are never logged, so neither is a secret.
 */
export function requestContext(deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    c.set('deps', deps);
    c.set('requestId', requestId);
    await next();
    c.header('X-Request-Id', requestId);
    const durationMs = Math.round((performance.now() - started) * 100) / 100;
    const route = c.req.routePath;
    deps.logger.info(
      { requestId, method: c.req.method, path: c.req.path, route, status: c.res.status, durationMs },
      'request',
    );
    deps.metrics.observeRequest({ method: c.req.method, route, status: c.res.status, durationMs });
  };
}
