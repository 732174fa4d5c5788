import type { OpenAPIHono } from '@hono/zod-openapi';
import { errorResponses } from './envelope.js';

type RouteConfig = Parameters<OpenAPIHono['openAPIRegistry']['registerPath']>[0];

/**
 * A route's documented responses with the error answers that the shared
 * middleware, not its handler, gives. The document builder adds them to
 * every route (api/operator/openapi-documents.ts), so no route has to
 * remember them and none can forget:
 * - 429 `rate_limited` on every credentialed route: the limits of
 *   docs/operations.md ("Rate limits") refuse in the authentication, before
 *   the handler runs (api/auth/authenticate.ts, admin-auth.ts);
 * - 503 `unavailable` on every route that can fail (one that lists 500):
 *   the request limit (api/http/request-timeout.ts), a Postgres that is away
 *   or a statement stopped by its time limit (api/http/errors.ts).
 * A status the route lists itself keeps the route's own entry.
 */
export function withSharedErrorAnswers(route: RouteConfig): RouteConfig {
  const credentialed = (route.security?.length ?? 0) > 0;
  const shared = [...(credentialed ? [429] : []), ...('500' in route.responses ? [503] : [])];
  return { ...route, responses: { ...errorResponses(...shared), ...route.responses } };
}
