import type { RouteConfig, RouteHandler } from '@hono/zod-openapi';
import type { Handler } from 'hono';
import type { OperationName } from '../../shared/domain/permissions.js';
import type { AppEnv } from '../app-env.js';
import { errorResponses } from '../http/envelope.js';

/**
 * Who may call a route: the one statement of its security. The OpenAPI
 * `security`, the 401 and 403 answers it documents and the guard that runs
 * before it (api/routes/mount-routes.ts) all derive from it.
 */
export type Access =
  /** X-API-Key and X-API-Secret of a provider the operation is open to (product rules §1, shared/domain/permissions.ts). */
  | { operation: OperationName }
  /** `Authorization: Bearer <ADMIN_TOKEN>`; without ADMIN_TOKEN configured the route does not exist (404). */
  | 'admin'
  /** A live token in the query, verified by the handler: no API headers, callable from a browser page (CORS, §8). */
  | 'live-token'
  /** No credential at all: the probes. */
  | 'public';

/** A route without `security`: its access says it (a route that states it too does not compile). */
type UnsecuredRoute = RouteConfig & { security?: never };

/** One row of the route table (api/routes/table.ts). */
export interface RouteEntry {
  access: Access;
  /** The document's route, and for a validated entry the request's validation; its middleware runs after the access guard. */
  route: UnsecuredRoute;
  handler: Handler<AppEnv>;
  /** False: registered as a plain Hono route, the handler reading the raw request (the document still comes from `route`). */
  validated: boolean;
}

/** A route whose request `app.openapi` validates against `route` before `handler` runs. */
export function defineRoute<R extends UnsecuredRoute>(entry: {
  access: Access;
  route: R;
  handler: RouteHandler<R, AppEnv>;
}): RouteEntry {
  return { ...entry, handler: entry.handler as unknown as Handler<AppEnv>, validated: true };
}

/**
 * A route whose handler checks the request itself, for the hot path where
 * the validator middleware costs more than the check (the active read).
 */
export function defineUnvalidatedRoute<R extends UnsecuredRoute>(entry: {
  access: Access;
  route: R;
  handler: Handler<AppEnv, HonoPath<R['path']>>;
}): RouteEntry {
  return { ...entry, handler: entry.handler as Handler<AppEnv>, validated: false };
}

/** `/v1/things/{id}` as Hono spells it, `/v1/things/:id`, so the handler's `c.req.param` is typed. */
type HonoPath<P extends string> = P extends `${infer Start}/{${infer Param}}${infer Rest}`
  ? `${Start}/:${Param}${HonoPath<Rest>}`
  : P;

const SECURITY = {
  // Both headers together.
  credential: [{ ApiKey: [], ApiSecret: [] }],
  admin: [{ AdminToken: [] }],
  open: [],
};

/** The OpenAPI `security` of an access. */
function securityOf(access: Access): RouteConfig['security'] {
  if (typeof access === 'object') return SECURITY.credential;
  return access === 'admin' ? SECURITY.admin : SECURITY.open;
}

/** The error answers an access's guard gives, documented on every route that has it. */
function guardAnswers(access: Access): number[] {
  if (typeof access === 'object') return [401, 403];
  return access === 'admin' ? [401] : [];
}

/** The route as the OpenAPI registry holds it: its security and its guard's answers added, no middleware (code, not document). */
export function documentedRoute({ access, route }: RouteEntry): RouteConfig {
  const { middleware: _middleware, ...documented } = route;
  return {
    ...documented,
    security: securityOf(access),
    responses: { ...errorResponses(...guardAnswers(access)), ...route.responses },
  };
}

/** The route's path as Hono spells it (`{id}` becomes `:id`). */
export const honoPath = (route: { path: string }) => route.path.replaceAll(/\/{(.+?)}/g, '/:$1');
