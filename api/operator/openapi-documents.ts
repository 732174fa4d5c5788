import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../app-env.js';
import { withSharedErrorAnswers } from '../http/shared-error-answers.js';
import { addErrorExamples } from './error-examples.js';
import { adminGuide, integratorGuide } from './reference-guide.js';

export type OpenApiDocument = ReturnType<OpenAPIHono['getOpenAPI31Document']>;
type RouteConfig = Parameters<OpenAPIHono['openAPIRegistry']['registerPath']>[0];

export const INTEGRATOR_DOCUMENT_PATH = '/openapi.json';
export const ADMIN_DOCUMENT_PATH = '/admin/openapi.json';

// Relative, so the document (and Scalar's generated curl lines) name whatever
// host serves it: a reverse proxy's public name included, with no setting to
// keep in step. SDK users pass their base URL.
const servers = [{ url: '/', description: 'This service: the host that serves this document.' }];

// The project is private and unlicensed; the entry says so rather than leave it out.
const license = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' };

const securitySchemes = {
  ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: "The credential's public key." },
  ApiSecret: { type: 'apiKey', in: 'header', name: 'X-API-Secret', description: "The credential's secret (backends only)." },
  AdminToken: { type: 'http', scheme: 'bearer', description: 'The ADMIN_TOKEN the service is configured with.' },
} as const;

// Tag order is the reference page's section order: what integrators call, in
// the order they call it, and the probes last.
const integratorTags = [
  { name: 'Users', description: 'Register your users before or after their first events.' },
  { name: 'Events', description: 'Report what your users did; progress is computed from events alone.' },
  { name: 'Quest chains', description: "Read a user's active chains with task states and progress." },
  {
    name: 'Account links',
    description: "Connect a platform user to an advertiser's account (platform starts, advertiser completes).",
  },
  { name: 'Rewards', description: 'List and claim the rewards of completed tasks and chains.' },
  {
    name: 'Points',
    description: "A user's points balance and ledger (credited by claims of points rewards), and spends (docs/points.md).",
  },
  {
    name: 'Leaderboards',
    description:
      'Rank your users by points or chains completed, per period; read the top or around a user (docs/leaderboards.md).',
  },
  {
    name: 'Test mode',
    description:
      'Sandbox credentials (pk_test_…) whose data never mixes with live-mode data; reset a test mode (docs/test-mode.md).',
  },
  {
    name: 'Webhooks',
    description: 'Signed notifications (Standard Webhooks) of completions and claims, with a delivery log and replay.',
  },
  { name: 'Live updates', description: 'Server-Sent Events telling a browser when to refetch progress.' },
  { name: 'Operations', description: 'Liveness and readiness probes for orchestrators and load balancers (no credentials).' },
];
const adminTags = [{ name: 'Admin', description: 'Providers, credentials, quest chains and leaderboards (bearer ADMIN_TOKEN).' }];

const isAdminRoute = (route: RouteConfig) => route.path.startsWith('/admin/');

interface DocumentSpec {
  info: OpenApiDocument['info'];
  tags: { name: string; description: string }[];
  schemes: (keyof typeof securitySchemes)[];
  keep: (route: RouteConfig) => boolean;
}

/**
 * One document over a subset of the app's routes. A fresh registry holds
 * only those routes, so the generator emits only the schemas they reference;
 * routes are registered in tag order, which is the order of `paths`.
 */
function buildDocument(app: OpenAPIHono<AppEnv>, spec: DocumentSpec): OpenApiDocument {
  const routes = app.openAPIRegistry.definitions.flatMap((definition) =>
    definition.type === 'route' && spec.keep(definition.route) ? [definition.route] : [],
  );
  const tagRank = (route: RouteConfig) => {
    const rank = spec.tags.findIndex((tag) => route.tags?.includes(tag.name));
    if (rank < 0)
      throw new Error(
        `${route.method.toUpperCase()} ${route.path}: tag ${route.tags?.join(', ')} is not declared in openapi-documents.ts`,
      );
    return rank;
  };
  const builder = new OpenAPIHono();
  for (const route of routes.sort((a, b) => tagRank(a) - tagRank(b)))
    builder.openAPIRegistry.registerPath(withSharedErrorAnswers(route));
  for (const name of spec.schemes) builder.openAPIRegistry.registerComponent('securitySchemes', name, securitySchemes[name]);
  const document = builder.getOpenAPI31Document({ openapi: '3.1.0', info: spec.info, servers, tags: spec.tags });
  addErrorExamples(document);
  return document;
}

/** What integrators call: /v1 and the probes. */
export const integratorDocument = (app: OpenAPIHono<AppEnv>) =>
  buildDocument(app, {
    info: { title: 'Quest-Chain Rewards API', version: '1.0.0', license, description: integratorGuide },
    tags: integratorTags,
    schemes: ['ApiKey', 'ApiSecret'],
    keep: (route) => !isAdminRoute(route),
  });

/** What operators call: /admin/v1. */
export const adminDocument = (app: OpenAPIHono<AppEnv>) =>
  buildDocument(app, {
    info: { title: 'Quest-Chain Rewards Admin API', version: '1.0.0', license, description: adminGuide },
    tags: adminTags,
    schemes: ['AdminToken'],
    keep: isAdminRoute,
  });

/**
 * GET /openapi.json and GET /admin/openapi.json. Built on first request, when
 * every route is registered, then kept: the routes do not change at run time.
 * The admin document is public like the other: it describes shapes, holds no
 * data, and the routes it describes still require the token.
 */
export function registerOpenApiDocuments(app: OpenAPIHono<AppEnv>) {
  let integrator: OpenApiDocument | undefined;
  let admin: OpenApiDocument | undefined;
  app.get(INTEGRATOR_DOCUMENT_PATH, (c) => c.json((integrator ??= integratorDocument(app))));
  app.get(ADMIN_DOCUMENT_PATH, (c) => c.json((admin ??= adminDocument(app))));
}
