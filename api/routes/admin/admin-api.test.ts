import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentials } from '../../../shared/db/schema/index.js';
import { TEST_ADMIN_TOKEN } from '../../../shared/testing/admin-token.js';
import { createTestApp, type TestApp } from '../../testing/test-app.js';
import { useTestService } from '../../testing/test-service.js';

// Product rules §2 (admin API behind ADMIN_TOKEN) and §1 (credentials:
// secret shown once, permission lists validated per provider type).

const { database, api } = useTestService('admin_api', { providers: false });
let disabled: TestApp;

beforeAll(async () => {
  disabled = await createTestApp(database, { ADMIN_TOKEN: '' });
});
afterAll(async () => {
  await disabled.close();
});

const admin = (method: string, path: string, body?: unknown) => api.call(method, path, { headers: api.adminHeaders, body });

async function createProvider(type: 'platform' | 'advertiser') {
  const answer = await admin('POST', '/admin/v1/providers', { type, name: `${type} ${randomUUID().slice(0, 8)}` });
  expect(answer.status, answer.text).toBe(200);
  return answer.json.data as { id: string; type: string; name: string; status: string; created_at: string };
}

async function createCredential(providerId: string, permissions?: string[]) {
  return admin('POST', `/admin/v1/providers/${providerId}/credentials`, permissions === undefined ? {} : { permissions });
}

/** Every admin route with a plausible body; ids need not exist (the guard answers first). */
const adminRoutes = (): [string, string, unknown][] => [
  ['POST', '/admin/v1/providers', { type: 'platform', name: 'x' }],
  ['GET', '/admin/v1/providers', undefined],
  ['PATCH', `/admin/v1/providers/${randomUUID()}`, { status: 'inactive' }],
  ['POST', `/admin/v1/providers/${randomUUID()}/credentials`, {}],
  ['GET', `/admin/v1/providers/${randomUUID()}/credentials`, undefined],
  ['PATCH', '/admin/v1/credentials/pk_whatever', { status: 'inactive' }],
  ['POST', '/admin/v1/quest-chains', { name: 'x' }],
  ['GET', '/admin/v1/quest-chains', undefined],
  ['GET', `/admin/v1/quest-chains/${randomUUID()}`, undefined],
  ['PATCH', `/admin/v1/quest-chains/${randomUUID()}`, { status: 'paused' }],
];

describe('admin token', () => {
  it.each([
    ['no Authorization', {}, 'missing_credentials'],
    ['a wrong bearer', { authorization: 'Bearer not-the-token-at-all' }, 'invalid_credentials'],
    ['the token with a trailing character', { authorization: `Bearer ${TEST_ADMIN_TOKEN}x` }, 'invalid_credentials'],
    ['the token without the Bearer scheme', { authorization: TEST_ADMIN_TOKEN }, 'missing_credentials'],
    ['Basic auth', { authorization: 'Basic dXNlcjpwYXNz' }, 'missing_credentials'],
    ['an API credential', { 'x-api-key': 'pk_x', 'x-api-secret': 'sk_x' }, 'missing_credentials'],
  ])('%s -> 401 on every admin route', async (_label, headers, code) => {
    for (const [method, path, body] of adminRoutes()) {
      const answer = await api.call(method, path, { headers: { 'content-type': 'application/json', ...headers }, body });
      expect(answer.status, `${method} ${path}`).toBe(401);
      expect(answer.json).toMatchObject({ success: false, code });
    }
  });

  it('checks the token before the body: invalid or oversize body without a token -> 401', async () => {
    const headers = { 'content-type': 'application/json' };
    expect((await api.call('POST', '/admin/v1/providers', { headers, body: '{oops' })).status).toBe(401);
    expect((await api.call('POST', '/admin/v1/providers', { headers, body: { type: 'nope' } })).status).toBe(401);
    expect((await api.call('PATCH', '/admin/v1/providers/not-a-uuid', { headers, body: {} })).status).toBe(401);
    const huge = JSON.stringify({ type: 'platform', name: 'x'.repeat(100 * 1024) });
    expect((await api.call('POST', '/admin/v1/providers', { headers, body: huge })).status).toBe(401);
  });

  it('with ADMIN_TOKEN unset every admin route answers 404, token or not', async () => {
    for (const [method, path, body] of adminRoutes()) {
      for (const headers of [{}, api.adminHeaders, { authorization: 'Bearer ' }] as Record<string, string>[]) {
        const answer = await disabled.call(method, path, { headers: { 'content-type': 'application/json', ...headers }, body });
        expect(answer.status, `${method} ${path}`).toBe(404);
        expect(answer.json).toMatchObject({ success: false, code: 'not_found' });
      }
    }
  });

  it('the API itself still works without ADMIN_TOKEN', async () => {
    expect((await disabled.call('GET', '/healthz')).status).toBe(200);
    expect((await disabled.call('POST', '/v1/events', { body: {} })).status).toBe(401);
  });
});

describe('providers', () => {
  it('creates, lists and deactivates a provider', async () => {
    const provider = await createProvider('advertiser');
    expect(provider).toMatchObject({ type: 'advertiser', status: 'active' });
    expect(provider.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const list = await admin('GET', '/admin/v1/providers');
    expect(list.json.data.providers).toContainEqual(provider);
    const patched = await admin('PATCH', `/admin/v1/providers/${provider.id}`, { status: 'inactive' });
    expect(patched.json.data).toEqual({ ...provider, status: 'inactive' });
  });

  it.each([
    ['type unknown', { type: 'publisher-ish', name: 'x' }, 'type'],
    ['type missing', { name: 'x' }, 'type'],
    ['name empty', { type: 'platform', name: '' }, 'name'],
    ['name blank', { type: 'platform', name: '   ' }, 'name'],
    ['name too long', { type: 'platform', name: 'n'.repeat(201) }, 'name'],
    ['name with NUL', { type: 'platform', name: 'a\u0000' }, 'name'],
  ])('create with %s -> 400 naming the field', async (_label, body, field) => {
    const answer = await admin('POST', '/admin/v1/providers', body);
    expect(answer.status).toBe(400);
    expect(answer.json.error).toContain(field);
  });

  it('PATCH: unknown id -> 404, malformed id or status -> 400', async () => {
    expect((await admin('PATCH', `/admin/v1/providers/${randomUUID()}`, { status: 'inactive' })).status).toBe(404);
    const malformed = await admin('PATCH', '/admin/v1/providers/not-a-uuid', { status: 'inactive' });
    expect(malformed.status).toBe(400);
    expect(malformed.json.error).toContain('id');
    const provider = await createProvider('platform');
    const badStatus = await admin('PATCH', `/admin/v1/providers/${provider.id}`, { status: 'paused' });
    expect(badStatus.status).toBe(400);
    expect(badStatus.json.error).toContain('status');
  });
});

describe('credentials', () => {
  it('returns the secret once: never in the list, the PATCH answer or the database', async () => {
    const provider = await createProvider('platform');
    const created = await createCredential(provider.id);
    expect(created.status).toBe(200);
    const { key, secret } = created.json.data;
    expect(created.json.data).toMatchObject({ provider_id: provider.id, provider_type: 'platform', status: 'active' });
    expect(secret).toMatch(/^sk_[\w-]{40,}$/);

    const list = await admin('GET', `/admin/v1/providers/${provider.id}/credentials`);
    expect(list.status).toBe(200);
    expect(list.json.data.credentials).toEqual([
      {
        key,
        provider_id: provider.id,
        provider_type: 'platform',
        permissions: created.json.data.permissions,
        status: 'active',
        mode: 'live',
      },
    ]);
    expect(list.text).not.toContain(secret);
    expect(list.text).not.toMatch(/secret/i);

    const patched = await admin('PATCH', `/admin/v1/credentials/${key}`, { status: 'inactive' });
    expect(patched.json.data).not.toHaveProperty('secret');
    expect(patched.text).not.toContain(secret);

    // Every column of the stored row, as text.
    const [stored] = await database.db.select().from(credentials).where(eq(credentials.key, key));
    const row = stored && { row: JSON.stringify(stored, (_name, value) => (typeof value === 'bigint' ? String(value) : value)) };
    expect(row?.row).toBeDefined();
    expect(row!.row).not.toContain(secret);
    expect(row!.row).not.toContain(secret.slice(3)); // nor the random part alone
  });

  it('the secret authenticates; a second credential gets a different one', async () => {
    const provider = await createProvider('platform');
    const first = (await createCredential(provider.id)).json.data;
    const second = (await createCredential(provider.id)).json.data;
    expect(second.key).not.toBe(first.key);
    expect(second.secret).not.toBe(first.secret);
    const headers = { 'x-api-key': first.key, 'x-api-secret': first.secret };
    expect((await api.call('POST', '/v1/users/register', { headers, body: { platform_user_id: 'p' } })).status).toBe(200);
    const crossed = { 'x-api-key': first.key, 'x-api-secret': second.secret };
    expect((await api.call('POST', '/v1/users/register', { headers: crossed, body: { platform_user_id: 'p' } })).status).toBe(
      401,
    );
  });

  it('defaults to every permission the provider type may hold', async () => {
    const platform = (await createCredential((await createProvider('platform')).id)).json.data;
    expect([...platform.permissions].sort()).toEqual([
      'account_links:write',
      'events:write',
      'leaderboards:read',
      'quest_chains:read',
      'rewards:claim',
      'rewards:read',
      'users:register',
      'webhooks:manage',
    ]);
    const advertiser = (await createCredential((await createProvider('advertiser')).id)).json.data;
    expect([...advertiser.permissions].sort()).toEqual([
      'account_links:write',
      'events:write',
      'quest_chains:stats',
      'webhooks:manage',
    ]);
  });

  it.each([
    ['an unknown permission', 'platform', ['events:write', 'events:delete'], 'events:delete'],
    ['a platform-only permission for an advertiser', 'advertiser', ['users:register'], 'users:register'],
    ['quest_chains:read for an advertiser', 'advertiser', ['quest_chains:read'], 'quest_chains:read'],
    ['a non-string permission', 'platform', [42], 'permissions'],
  ] as const)('create with %s -> 400 naming permissions', async (_label, type, permissions, named) => {
    const provider = await createProvider(type);
    const answer = await admin('POST', `/admin/v1/providers/${provider.id}/credentials`, { permissions });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toMatchObject({ code: 'invalid_field', param: `permissions.${permissions.length - 1}` });
    expect(answer.json.error).toContain('permissions');
    expect(answer.json.error).toContain(named);
    const list = await admin('GET', `/admin/v1/providers/${provider.id}/credentials`);
    expect(list.json.data).toEqual({ credentials: [], has_more: false });
  });

  it('PATCH validates permissions the same way and leaves the credential unchanged', async () => {
    const provider = await createProvider('advertiser');
    const created = (await createCredential(provider.id, ['events:write'])).json.data;
    const answer = await admin('PATCH', `/admin/v1/credentials/${created.key}`, { permissions: ['rewards:read'] });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toContain('rewards:read');
    const list = await admin('GET', `/admin/v1/providers/${provider.id}/credentials`);
    expect(list.json.data.credentials[0].permissions).toEqual(['events:write']);
  });

  it('an empty permission list is allowed, and then every operation is 403', async () => {
    const platform = (await createCredential((await createProvider('platform')).id, [])).json.data;
    const advertiser = (await createCredential((await createProvider('advertiser')).id, [])).json.data;
    expect(platform.permissions).toEqual([]);
    const asPlatform = { 'x-api-key': platform.key, 'x-api-secret': platform.secret };
    const asAdvertiser = { 'x-api-key': advertiser.key, 'x-api-secret': advertiser.secret };
    const event = { user_id: 'u', event_type: 't', timestamp: '2026-03-01T10:00:00Z' };
    const calls: [Record<string, string>, string, string, unknown][] = [
      [asPlatform, 'POST', '/v1/events', event],
      [asPlatform, 'POST', '/v1/events/batch', { events: [event] }],
      [asPlatform, 'POST', '/v1/users/register', { platform_user_id: 'u' }],
      [asPlatform, 'GET', '/v1/quest-chains/active/u', undefined],
      [asAdvertiser, 'POST', '/v1/events', event],
      [asAdvertiser, 'POST', '/v1/events/batch', { events: [event] }],
    ];
    for (const [headers, method, path, body] of calls) {
      const answer = await api.call(method, path, { headers, body });
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.json.error, `${method} ${path}`).toContain('lacks the permission');
    }
  });

  it('unknown provider -> 404; unknown key -> 404; empty PATCH -> 400', async () => {
    expect((await createCredential(randomUUID())).status).toBe(404);
    expect((await admin('GET', `/admin/v1/providers/${randomUUID()}/credentials`)).status).toBe(404);
    expect((await admin('PATCH', '/admin/v1/credentials/pk_nobody', { status: 'inactive' })).status).toBe(404);
    const created = (await createCredential((await createProvider('platform')).id)).json.data;
    const empty = await admin('PATCH', `/admin/v1/credentials/${created.key}`, {});
    expect(empty.status).toBe(400);
  });

  it('a key that Postgres cannot store (%00) is a 400, not a 500', async () => {
    const answer = await admin('PATCH', '/admin/v1/credentials/pk_%00', { status: 'inactive' });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toContain('key');
  });
});
