import type { OpenAPIBackend } from 'openapi-backend';
import { beforeAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../core/backtests/run-backtest.js';
import { createTestProvider } from '../../shared/testing/fixtures.js';
import {
  type Conformance,
  conformanceTo,
  OUTSIDE_THE_DOCUMENTS,
  openApiBackend,
} from '../../shared/testing/openapi-conformance.js';
import { storeCompletion } from '../../shared/testing/progress.js';
import { useTestService } from '../testing/test-service.js';

type Operation = { responses?: Record<string, unknown>; security?: unknown };
type OpenApiDocument = {
  openapi: string;
  info: { description: string; license?: unknown };
  servers: unknown[];
  tags: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown> };
};

const { database, api, platform } = useTestService('openapi');
let integrator: OpenApiDocument;
let admin: OpenApiDocument;
let conformance: Conformance;

// Routes that are deliberately in neither document (the black-box suites skip
// the same paths), and the wildcards that forward to an operation documented
// by its own route (api/routes/mount-plan.ts).
const UNDOCUMENTED = [
  ...OUTSIDE_THE_DOCUMENTS,
  /^\/v1\/quest-chains\/\*$/,
  /^\/v1\/events\/\*$/,
  /^\/v1\/rewards\/\*$/,
  /^\/v1\/users\/\*$/,
];

/** Hono's `/a/:id{[0-9]+}` as OpenAPI's `/a/{id}`. */
const toOpenApiPath = (path: string) => path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}');

/** Checks `body` against the served documents' schema for (path, method, status), the black-box suites' check; fails when the status is not documented. */
function validateResponse(path: string, method: string, status: number, body: unknown) {
  expect(conformance({ method, path, status, body })).toBeUndefined();
}

beforeAll(async () => {
  const answer = await api.call('GET', '/openapi.json');
  const adminAnswer = await api.call('GET', '/admin/openapi.json');
  expect([answer.status, adminAnswer.status]).toEqual([200, 200]);
  integrator = answer.json;
  admin = adminAnswer.json;
  conformance = await conformanceTo({ integrator, admin });
});

describe('GET /openapi.json', () => {
  it('is OpenAPI 3.1 with the two API key schemes; the admin document has the bearer token', () => {
    expect([integrator.openapi, admin.openapi]).toEqual(['3.1.0', '3.1.0']);
    expect(Object.keys(integrator.components.securitySchemes).sort()).toEqual(['ApiKey', 'ApiSecret']);
    expect(Object.keys(admin.components.securitySchemes)).toEqual(['AdminToken']);
  });

  it('shows integrators only what they call, probes last; the admin routes have their own document', () => {
    const integratorPaths = Object.keys(integrator.paths);
    expect(integratorPaths.filter((path) => path.startsWith('/admin'))).toEqual([]);
    expect(integratorPaths.slice(-2)).toEqual(['/healthz', '/readyz']);
    expect(integrator.tags.map((tag) => tag.name).at(-1)).toBe('Operations');
    expect(Object.keys(admin.paths).length).toBeGreaterThan(5);
    expect(Object.keys(admin.paths).every((path) => path.startsWith('/admin/v1/'))).toBe(true);
  });

  it('names its server and license, and marks the routes without API headers as public', () => {
    for (const document of [integrator, admin]) {
      expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
      expect(document.info.license).toEqual(expect.objectContaining({ name: expect.any(String) }));
    }
    for (const path of ['/healthz', '/readyz', '/v1/live']) expect(integrator.paths[path]!.get!.security, path).toEqual([]);
    expect(integrator.paths['/v1/events']!.post!.security).toEqual([{ ApiKey: [], ApiSecret: [] }]);
  });

  it('opens with the integrator guides', () => {
    const headings = [...integrator.info.description.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(headings).toEqual([
      'Authentication',
      'Errors and retries',
      'Idempotency and deduplication',
      'Limits',
      'Versioning',
      'Live updates',
      'Points',
      'Leaderboards (platforms)',
      'Chain stats (advertisers)',
    ]);
  });

  it('lists the answers of the shared middleware on every route they can come from (api/http/shared-error-answers.ts)', () => {
    const operations = [integrator, admin].flatMap((document) =>
      Object.entries(document.paths).flatMap(([path, item]) =>
        Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
      ),
    );
    const statuses = ({ operation }: (typeof operations)[number]) => Object.keys(operation.responses ?? {});
    const credentialed = operations.filter(({ operation }) => Array.isArray(operation.security) && operation.security.length > 0);
    expect(credentialed.length).toBeGreaterThan(20);
    expect(credentialed.filter((entry) => !statuses(entry).includes('429')).map((entry) => entry.name)).toEqual([]);
    expect(
      operations
        .filter((entry) => statuses(entry).includes('500') && !statuses(entry).includes('503'))
        .map((entry) => entry.name),
    ).toEqual([]);
  });

  it('documents every route the app serves', () => {
    const served = api.app.routes
      .filter((route) => route.method !== 'ALL' && !UNDOCUMENTED.some((pattern) => pattern.test(route.path)))
      .map((route) => `${route.method} ${toOpenApiPath(route.path)}`);
    // Guard against the walk itself finding nothing (e.g. if Hono renamed `routes`).
    expect(served).toEqual(expect.arrayContaining(['POST /v1/events', 'GET /healthz']));
    const documented = Object.entries({ ...integrator.paths, ...admin.paths }).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented).toEqual(expect.arrayContaining([...new Set(served)]));
  });
});

describe('answers of the running service match the document', () => {
  const event = { user_id: 'doc-user', event_type: 'registration', timestamp: '2026-01-02T03:04:05.678Z' };

  it('register, event, duplicate, batch', async () => {
    const registered = await api.call('POST', '/v1/users/register', {
      headers: platform.headers,
      body: { platform_user_id: 'doc-user', country_code: 'DE' },
    });
    expect(registered.status).toBe(200);
    validateResponse('/v1/users/register', 'post', 200, registered.json);

    const first = await api.call('POST', '/v1/events', {
      headers: platform.headers,
      body: { ...event, amount: 12.5, currency: 'EUR', metadata: { a: 1 } },
    });
    expect(first.json.data.status).toBe('received');
    validateResponse('/v1/events', 'post', 200, first.json);

    const again = await api.call('POST', '/v1/events', { headers: platform.headers, body: event });
    expect(again.json.data.status).toBe('duplicate');
    validateResponse('/v1/events', 'post', 200, again.json);

    const batch = await api.call('POST', '/v1/events/batch', {
      headers: platform.headers,
      body: { events: [{ ...event, event_type: 'kyc' }, event, { user_id: '' }] },
    });
    expect(batch.json.data.results.map((r: { status: string }) => r.status)).toEqual(['received', 'duplicate', 'rejected']);
    validateResponse('/v1/events/batch', 'post', 200, batch.json);
  });

  it('a partial batch: the document lets a validating client send it, and the service answers it item by item', async () => {
    const backend: OpenAPIBackend = await openApiBackend(integrator);
    const documentAllows = (body: unknown) =>
      backend.validateRequest({
        method: 'post',
        path: '/v1/events/batch',
        headers: { 'content-type': 'application/json' },
        body,
      });
    const partial = {
      events: [{ ...event, event_type: 'partial' }, { ...event, userId: 'typo' }, { user_id: '' }, 'not an event', null],
    };
    expect(documentAllows(partial).errors).toBeNull();
    // The envelope is still the document's to refuse, as the service answers it 400.
    for (const envelope of [{}, { events: [] }, { events: [event], extra: 1 }])
      expect(documentAllows(envelope).valid, JSON.stringify(envelope)).toBe(false);

    const batch = await api.call('POST', '/v1/events/batch', { headers: platform.headers, body: partial });
    expect(batch.status).toBe(200);
    expect(batch.json.data.results.map((r: { status: string }) => r.status)).toEqual([
      'received',
      'rejected',
      'rejected',
      'rejected',
      'rejected',
    ]);
    validateResponse('/v1/events/batch', 'post', 200, batch.json);
  });

  it('active chains', async () => {
    const path = '/v1/quest-chains/active/{platformUserId}';
    const answer = await api.call('GET', '/v1/quest-chains/active/doc-user', { headers: platform.headers });
    expect(answer.status).toBe(200);
    validateResponse(path, 'get', 200, answer.json);
  });

  it('400, 401 and 404 in the error envelope', async () => {
    const invalid = await api.call('POST', '/v1/events', {
      headers: platform.headers,
      body: { ...event, timestamp: 'yesterday' },
    });
    expect(invalid.status).toBe(400);
    validateResponse('/v1/events', 'post', 400, invalid.json);

    const anonymous = await api.call('POST', '/v1/events', { body: event });
    expect(anonymous.status).toBe(401);
    validateResponse('/v1/events', 'post', 401, anonymous.json);

    const missing = await api.call('PATCH', '/admin/v1/providers/00000000-0000-4000-8000-000000000000', {
      headers: api.adminHeaders,
      body: { status: 'inactive' },
    });
    expect(missing.status).toBe(404);
    validateResponse('/admin/v1/providers/{id}', 'patch', 404, missing.json);
  });

  it('admin provider create and healthz', async () => {
    const created = await api.call('POST', '/admin/v1/providers', {
      headers: api.adminHeaders,
      body: { type: 'advertiser', name: 'Docs Ltd' },
    });
    expect(created.status).toBe(200);
    validateResponse('/admin/v1/providers', 'post', 200, created.json);

    const health = await api.call('GET', '/healthz');
    validateResponse('/healthz', 'get', 200, health.json);
  });

  it('chain admin, account linking, the read with progress, and rewards', async () => {
    const advertiser = await createTestProvider(database.db, 'advertiser');
    const chain = await api.call('POST', '/admin/v1/quest-chains', {
      headers: api.adminHeaders,
      body: {
        platform_id: platform.id,
        advertiser_id: advertiser.id,
        name: 'Docs chain',
        start_date: '2026-01-01T00:00:00Z',
        end_date: '2036-01-01T00:00:00Z',
        tasks: [1, 2].map((n) => ({
          sequence_number: n,
          name: `t${n}`,
          condition_event_type: 'kyc',
          reward_type: 'points',
          reward_name: 'p',
          reward_value: n,
        })),
        chain_reward: { type: 'mystery_box', name: 'Box', value: 5 },
      },
    });
    expect(chain.status).toBe(200);
    validateResponse('/admin/v1/quest-chains', 'post', 200, chain.json);
    const chainId: string = chain.json.data.quest_chain.id;
    const [firstTask] = chain.json.data.tasks as { id: string }[];
    validateResponse(
      '/admin/v1/quest-chains',
      'get',
      200,
      (await api.call('GET', '/admin/v1/quest-chains', { headers: api.adminHeaders })).json,
    );
    validateResponse(
      '/admin/v1/quest-chains/{id}',
      'get',
      200,
      (await api.call('GET', `/admin/v1/quest-chains/${chainId}`, { headers: api.adminHeaders })).json,
    );

    const user = await api.call('POST', '/v1/users/register', {
      headers: platform.headers,
      body: { platform_user_id: 'docs-linked' },
    });
    const started = await api.call('POST', '/v1/account-links', {
      headers: platform.headers,
      body: { platform_user_id: 'docs-linked', advertiser_id: advertiser.id },
    });
    expect(started.status).toBe(200);
    validateResponse('/v1/account-links', 'post', 200, started.json);
    const completed = await api.call('POST', '/v1/account-links/complete', {
      headers: advertiser.headers,
      body: { connection_token: started.json.data.connection_token, advertiser_user_id: 'adv-docs' },
    });
    expect(completed.status).toBe(200);
    validateResponse('/v1/account-links/complete', 'post', 200, completed.json);
    const links = await api.call('GET', '/v1/account-links/docs-linked', { headers: platform.headers });
    validateResponse('/v1/account-links/{platformUserId}', 'get', 200, links.json);

    // What the worker would store for task 1 (no worker runs in this file).
    await storeCompletion(database.db, {
      userId: user.json.data.user_id,
      providerId: platform.id,
      platformUserId: 'docs-linked',
      taskId: firstTask!.id,
      chainId,
      at: '2026-03-01T00:00:00.123456Z',
    });
    const read = await api.call('GET', '/v1/quest-chains/active/docs-linked', { headers: platform.headers });
    expect(read.json.data.claimable_tasks).toHaveLength(1);
    validateResponse('/v1/quest-chains/active/{platformUserId}', 'get', 200, read.json);

    const claim = await api.call('POST', '/v1/rewards/claim', {
      headers: platform.headers,
      body: { platform_user_id: 'docs-linked', task_id: firstTask!.id },
    });
    expect(claim.status).toBe(200);
    validateResponse('/v1/rewards/claim', 'post', 200, claim.json);
    const early = await api.call('POST', '/v1/rewards/claim', {
      headers: platform.headers,
      body: { platform_user_id: 'docs-linked', quest_chain_id: chainId },
    });
    expect(early.status).toBe(409);
    validateResponse('/v1/rewards/claim', 'post', 409, early.json);
    const rewards = await api.call('GET', '/v1/rewards/docs-linked', { headers: platform.headers });
    expect(rewards.json.data.claimed).toHaveLength(1);
    validateResponse('/v1/rewards/{platformUserId}', 'get', 200, rewards.json);
  });

  it('explain and backtest', async () => {
    const advertiser = await createTestProvider(database.db, 'advertiser');
    const body = {
      platform_id: platform.id,
      advertiser_id: advertiser.id,
      name: 'Explained chain',
      start_date: '2026-01-01T00:00:00Z',
      end_date: '2036-01-01T00:00:00Z',
      tasks: [
        {
          sequence_number: 1,
          name: 't1',
          condition_event_type: 'registration',
          condition_min_amount: 100,
          reward_type: 'points',
          reward_name: 'p',
          reward_value: 1,
        },
      ],
    };
    const chain = await api.call('POST', '/admin/v1/quest-chains', { headers: api.adminHeaders, body });
    // doc-user's registration event (no amount) is still pending here: no worker runs in this file.
    const explained = await api.call('GET', `/v1/quest-chains/${chain.json.data.quest_chain.id}/users/doc-user/explain`, {
      headers: platform.headers,
    });
    expect(explained.json.data.tasks[0].candidates.length).toBeGreaterThan(0);
    validateResponse('/v1/quest-chains/{questChainId}/users/{platformUserId}/explain', 'get', 200, explained.json);

    const started = await api.call('POST', '/admin/v1/quest-chains/backtest', { headers: api.adminHeaders, body });
    expect(started.status).toBe(202);
    validateResponse('/admin/v1/quest-chains/backtest', 'post', 202, started.json);
    const id = started.json.data.backtest_id as string;
    validateResponse(
      '/admin/v1/backtests/{id}',
      'get',
      200,
      (await api.call('GET', `/admin/v1/backtests/${id}`, { headers: api.adminHeaders })).json,
    );
    // No worker runs in this file: the job's work, done here as a worker would.
    await runBacktest({ db: database.db, logger: api.deps.logger }, { backtestId: id });
    const done = await api.call('GET', `/admin/v1/backtests/${id}`, { headers: api.adminHeaders });
    expect(done.json.data.status).toBe('completed');
    validateResponse('/admin/v1/backtests/{id}', 'get', 200, done.json);
  });

  it('rejects an answer that breaks the schema (the validator is not vacuous)', () => {
    expect(() => validateResponse('/healthz', 'get', 200, { success: true, data: {} })).toThrow();
  });
});

describe('GET /docs and GET /admin/docs', () => {
  it.each([
    ['/docs', '/openapi.json'],
    ['/admin/docs', '/admin/openapi.json'],
  ])('%s serves the reference page wired to the local bundle and %s', async (page, document) => {
    const answer = await api.call('GET', page);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/html');
    expect(answer.text).toContain('<script src="/docs/scalar.js">');
    expect(answer.text).toContain(`"url": "${document}"`);
    expect(answer.text).not.toContain('cdn.jsdelivr.net');
  });

  it('serves the Scalar bundle itself', async () => {
    const bundle = await api.app.request('/docs/scalar.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toContain('javascript');
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
  });
});
