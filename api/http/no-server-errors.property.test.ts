import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestService } from '../testing/test-service.js';

// "No input may produce a 500": with valid credentials, bodies that are valid
// but for one field (replaced by arbitrary JSON, or removed), whole arbitrary
// JSON values, and arbitrary path segments must all be answered below 500,
// in the error envelope when refused. Starting from valid bodies is what
// lets the fuzz reach the database, where such 500s come from.

const { api, platform, advertiser } = useTestService('no_500');

type Body = Record<string, unknown>;
interface Route {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Body;
  /** A key holding an array of objects whose first element may be perturbed instead. */
  nested?: string;
}

const event = {
  user_id: 'fuzz-user',
  event_type: 'deposit',
  timestamp: '2026-01-01T00:00:00Z',
  amount: 5,
  currency: 'usd',
  reference: 'r',
  metadata: { a: 1 },
};

const bodyRoutes = (): Route[] => [
  {
    method: 'POST',
    path: '/v1/users/register',
    headers: platform.headers,
    body: { platform_user_id: 'fuzz-user', country_code: 'DE', user_metadata: {} },
  },
  { method: 'POST', path: '/v1/events', headers: platform.headers, body: event },
  { method: 'POST', path: '/v1/events', headers: advertiser.headers, body: event },
  { method: 'POST', path: '/v1/events/batch', headers: platform.headers, body: { events: [event, event] }, nested: 'events' },
  {
    method: 'POST',
    path: '/v1/account-links',
    headers: platform.headers,
    body: { platform_user_id: 'fuzz-user', advertiser_id: advertiser.id },
  },
  {
    method: 'POST',
    path: '/v1/account-links/complete',
    headers: advertiser.headers,
    body: { connection_token: 'lt_unknown', advertiser_user_id: 'a' },
  },
  {
    method: 'POST',
    path: '/v1/rewards/claim',
    headers: platform.headers,
    body: { platform_user_id: 'fuzz-user', quest_chain_id: advertiser.id },
  },
  { method: 'POST', path: '/admin/v1/providers', headers: api.adminHeaders, body: { type: 'advertiser', name: 'fuzz' } },
  {
    method: 'POST',
    path: '/admin/v1/quest-chains',
    headers: api.adminHeaders,
    nested: 'tasks',
    body: {
      platform_id: platform.id,
      advertiser_id: advertiser.id,
      name: 'fuzz',
      start_date: '2026-01-01T00:00:00Z',
      end_date: '2027-01-01T00:00:00Z',
      tasks: [
        {
          sequence_number: 1,
          name: 't',
          condition_event_type: 'deposit',
          reward_type: 'points',
          reward_name: 'p',
          reward_value: 1,
        },
      ],
      chain_reward: { type: 'box', name: 'b' },
    },
  },
  {
    method: 'POST',
    path: `/admin/v1/providers/${advertiser.id}/credentials`,
    headers: api.adminHeaders,
    body: { permissions: ['events:write'] },
  },
];

const fieldValue = fc.oneof(
  fc.jsonValue(),
  fc.string(),
  fc.constantFrom(
    '2026-02-30T00:00:00Z',
    '9999-12-31T23:59:59.999999Z',
    '0001-01-01T00:00:00Z',
    'a\u0000b',
    '\ud800',
    '',
    'x'.repeat(300),
  ),
  fc.double(),
  fc.integer(),
  fc.uuid(),
);

/** A copy of `body` with one field (top level, or of the first element of its nested array) replaced or removed. */
function perturb(route: Route, inNested: boolean, keyPick: number, value: unknown, remove: boolean): Body {
  const copy = structuredClone(route.body);
  const target = inNested && route.nested ? ((copy[route.nested] as Body[])[0] as Body) : copy;
  const keys = Object.keys(target);
  const key = keys[keyPick % keys.length]!;
  if (remove) delete target[key];
  else target[key] = value;
  return copy;
}

describe('no input produces a 500', () => {
  it('for valid bodies with one field replaced by arbitrary JSON or removed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.boolean(),
        fc.nat(),
        fieldValue,
        fc.boolean(),
        async (pick, inNested, keyPick, value, remove) => {
          const routes = bodyRoutes();
          const route = routes[pick % routes.length]!;
          const body = perturb(route, inNested, keyPick, value, remove);
          const answer = await api.call(route.method, route.path, { headers: route.headers, body });
          expect(answer.status, `${route.method} ${route.path} ${JSON.stringify(body).slice(0, 300)}`).toBeLessThan(500);
          if (answer.status >= 400) expect(answer.json).toMatchObject({ success: false, error: expect.any(String) });
        },
      ),
      { numRuns: 400 },
    );
  });

  it('for arbitrary JSON values as the whole body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.jsonValue(), async (pick, body) => {
        const routes = bodyRoutes();
        const route = routes[pick % routes.length]!;
        const answer = await api.call(route.method, route.path, { headers: route.headers, body: JSON.stringify(body) });
        expect(answer.status, `${route.method} ${route.path}`).toBeLessThan(500);
      }),
      { numRuns: 100 },
    );
  });

  it('for arbitrary path segments on every route that takes one', async () => {
    const prefixes = [
      '/v1/quest-chains/active/',
      '/v1/rewards/',
      '/v1/account-links/',
      '/admin/v1/quest-chains/',
      '/admin/v1/providers/',
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...prefixes), fc.string({ maxLength: 300 }), async (prefix, segment) => {
        const headers = prefix.startsWith('/admin') ? api.adminHeaders : platform.headers;
        const answer = await api.call('GET', prefix + encodeURIComponent(segment), { headers });
        expect(answer.status, `${prefix}${JSON.stringify(segment)}`).toBeLessThan(500);
      }),
      { numRuns: 200 },
    );
  });
});
