import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { createAccessLog } from '../../shared/observability/access-log.js';
import type { AppDeps, AppEnv } from '../app-env.js';
import { tagAnswer } from './direct-answer.js';
import { requestHeader } from './request-headers.js';

const REQUEST_ID = /^[\w.-]{1,100}$/;

/**
 * First middleware: injects deps, assigns a request id (the caller's
 * X-Request-Id when sane) and logs one line per request with route, status
 * and duration. Headers are never logged, so neither is a secret.
 *
 * Kept cheap on purpose (docs/performance.md): the header goes into the
 * head Node writes (api/http/api-response.ts), because a header given to Hono
 * makes it keep the answer's headers in an undici Headers (and one added
 * afterwards rebuilds the response as a full undici Response); the access line is written in pino's format without
 * pino's generic serialisation and redaction (shared/observability/access-log.ts).
 */
export function requestContext(deps: AppDeps): MiddlewareHandler<AppEnv> {
  const accessLog = createAccessLog(deps.logger);
  return (c, next) => {
    const started = performance.now();
    const incoming = requestHeader(c, 'x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    c.set('deps', deps);
    c.set('requestId', requestId);
    // Every answer carries it, however it is built (api/http/direct-answer.ts).
    const where = tagAnswer(c, requestId);
    // Not an async function: one promise fewer per request (the chain's own).
    return next().then(() => {
      // In process, a handler that returned a Response it built itself (docs page, queue dashboard) did not get the prepared header.
      if (where === 'in process' && !c.res.headers.has('x-request-id')) c.header('X-Request-Id', requestId);
      const durationMs = Math.round((performance.now() - started) * 100) / 100;
      const route = c.req.routePath;
      const status = c.res.status;
      accessLog({ requestId, method: c.req.method, path: c.req.path, route, status, durationMs });
      deps.metrics.observeRequest({ method: c.req.method, route, status, durationMs });
    });
  };
}
