import { describe, expect, it } from 'vitest';
import { updateCredential } from '../../core/admin/credentials.js';
import { updateProvider } from '../../core/admin/providers.js';
import { eventually } from '../../shared/testing/eventually.js';
import { createTestProvider } from '../../shared/testing/fixtures.js';
import { createTestApp } from '../testing/test-app.js';
import { useTestService } from '../testing/test-service.js';

// Product rules §1 and §9: route (404), then 401, then 403 inactive, provider
// type, permission, then body size (413), JSON (400), validation (400).

const { database, api, platform, advertiser } = useTestService('auth');

const event = (n = 0) => ({
  user_id: 'auth-user',
  event_type: 'login',
  timestamp: `2026-01-01T00:00:${String(n).padStart(2, '0')}Z`,
});
const CREDENTIAL_INACTIVE = { code: 'credential_inactive', error: 'Credential is inactive' };
const PROVIDER_INACTIVE = { code: 'provider_inactive', error: 'Provider is inactive' };

const withoutHeader = (headers: Record<string, string>, name: string) =>
  Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));

describe('401: credentials missing or invalid', () => {
  it.each([
    ['X-API-Key missing', () => withoutHeader(platform.headers, 'x-api-key'), 'missing_credentials'],
    ['X-API-Secret missing', () => withoutHeader(platform.headers, 'x-api-secret'), 'missing_credentials'],
    ['both missing', () => ({ 'content-type': 'application/json' }), 'missing_credentials'],
    ['unknown key', () => ({ ...platform.headers, 'x-api-key': 'pk_unknown' }), 'invalid_credentials'],
    ['wrong secret', () => ({ ...platform.headers, 'x-api-secret': 'sk_wrong' }), 'invalid_credentials'],
    ['empty secret', () => ({ ...platform.headers, 'x-api-secret': '' }), 'missing_credentials'],
    ["another credential's secret", () => ({ ...platform.headers, 'x-api-secret': advertiser.secret }), 'invalid_credentials'],
    ['absurdly long key', () => ({ ...platform.headers, 'x-api-key': 'k'.repeat(5000) }), 'invalid_credentials'],
  ])('%s -> 401', async (_label, headers, code) => {
    const answer = await api.call('POST', '/v1/events', { headers: headers(), body: event() });
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({ success: false, code });
    expect(answer.json.error).toMatch(/X-API-Key|key or secret/);
  });
  // Every credentialed route: api/routes/route-access.test.ts.
});

describe('403 in its order: inactive, provider type, permission', () => {
  it('inactive credential -> 403 inactive; reactivated -> 200', async () => {
    const provider = await createTestProvider(database.db, 'platform');
    await updateCredential({ db: database.db }, { key: provider.key, status: 'inactive' });
    const answer = await api.call('POST', '/v1/events', { headers: provider.headers, body: event() });
    expect(answer.status).toBe(403);
    expect(answer.json).toMatchObject({ success: false, ...CREDENTIAL_INACTIVE });
    await updateCredential({ db: database.db }, { key: provider.key, status: 'active' });
    expect((await api.call('POST', '/v1/events', { headers: provider.headers, body: event() })).status).toBe(200);
  });

  it('inactive provider -> 403 inactive for its (active) credential', async () => {
    const provider = await createTestProvider(database.db, 'advertiser');
    await updateProvider({ db: database.db }, { providerId: provider.id, status: 'inactive' });
    const answer = await api.call('POST', '/v1/events', { headers: provider.headers, body: event() });
    expect(answer.status).toBe(403);
    expect(answer.json).toMatchObject(PROVIDER_INACTIVE);
  });

  it('advertiser calling a platform-only operation -> 403 provider type', async () => {
    const register = await api.call('POST', '/v1/users/register', {
      headers: advertiser.headers,
      body: { platform_user_id: 'x' },
    });
    expect(register.status).toBe(403);
    expect(register.json).toMatchObject({
      code: 'wrong_provider_type',
      error: 'This operation is not open to your provider type',
    });
    const read = await api.call('GET', '/v1/quest-chains/active/x', { headers: advertiser.headers });
    expect(read.status).toBe(403);
    expect(read.json.error).toBe('This operation is not open to your provider type');
  });

  it('permission missing -> 403 naming the permission', async () => {
    const limited = await createTestProvider(database.db, 'platform', { permissions: ['events:write'] });
    const answer = await api.call('POST', '/v1/users/register', { headers: limited.headers, body: { platform_user_id: 'x' } });
    expect(answer.status).toBe(403);
    expect(answer.json.code).toBe('permission_missing');
    expect(answer.json.error).toContain('users:register');
    expect((await api.call('POST', '/v1/events', { headers: limited.headers, body: event() })).status).toBe(200);
  });

  it('an inactive credential with a wrong secret is 401, not 403', async () => {
    const provider = await createTestProvider(database.db, 'platform');
    await updateCredential({ db: database.db }, { key: provider.key, status: 'inactive' });
    const answer = await api.call('POST', '/v1/events', {
      headers: { ...provider.headers, 'x-api-secret': 'sk_wrong' },
      body: event(),
    });
    expect(answer.status).toBe(401);
  });

  it('inactive and wrong provider type -> 403 with the inactive message', async () => {
    const provider = await createTestProvider(database.db, 'advertiser');
    await updateCredential({ db: database.db }, { key: provider.key, status: 'inactive' });
    const answer = await api.call('POST', '/v1/users/register', { headers: provider.headers, body: { platform_user_id: 'x' } });
    expect(answer.status).toBe(403);
    expect(answer.json).toMatchObject(CREDENTIAL_INACTIVE);
  });

  it('wrong provider type and permission missing -> the provider-type 403', async () => {
    const provider = await createTestProvider(database.db, 'advertiser', { permissions: [] });
    const answer = await api.call('POST', '/v1/users/register', { headers: provider.headers, body: { platform_user_id: 'x' } });
    expect(answer.json.error).toBe('This operation is not open to your provider type');
  });
});

describe('authentication comes before the body', () => {
  const invalidBodies: [string, string][] = [
    ['not JSON', '{not json'],
    ['a JSON array', '[]'],
    ['a field invalid', JSON.stringify({ user_id: '', event_type: 'x', timestamp: 'yesterday' })],
  ];

  it.each(invalidBodies)('no credentials + %s -> 401', async (_label, body) => {
    const answer = await api.call('POST', '/v1/events', { headers: { 'content-type': 'application/json' }, body });
    expect(answer.status).toBe(401);
  });

  it.each(invalidBodies)('inactive credential + %s -> 403', async (_label, body) => {
    const provider = await createTestProvider(database.db, 'platform');
    await updateCredential({ db: database.db }, { key: provider.key, status: 'inactive' });
    const answer = await api.call('POST', '/v1/events', { headers: provider.headers, body });
    expect(answer.status).toBe(403);
  });

  it('permission missing + invalid body -> 403', async () => {
    const limited = await createTestProvider(database.db, 'platform', { permissions: ['users:register'] });
    const answer = await api.call('POST', '/v1/events', { headers: limited.headers, body: '{}' });
    expect(answer.status).toBe(403);
  });

  it('oversize body without credentials -> 401, with credentials -> 413', async () => {
    const body = JSON.stringify({ ...event(), metadata: { pad: 'x'.repeat(70 * 1024) } });
    const anonymous = await api.call('POST', '/v1/events', { headers: { 'content-type': 'application/json' }, body });
    expect(anonymous.status).toBe(401);
    const inactive = await createTestProvider(database.db, 'platform');
    await updateCredential({ db: database.db }, { key: inactive.key, status: 'inactive' });
    expect((await api.call('POST', '/v1/events', { headers: inactive.headers, body })).status).toBe(403);
    const authenticated = await api.call('POST', '/v1/events', { headers: platform.headers, body });
    expect(authenticated.status).toBe(413);
    expect(authenticated.json).toMatchObject({ success: false, code: 'payload_too_large' });
  });

  it('valid credentials + not JSON -> 400', async () => {
    const answer = await api.call('POST', '/v1/events', { headers: platform.headers, body: '{"user_id": ' });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ success: false, code: 'invalid_json', error: 'Request body is not valid JSON' });
  });

  it.each(['[]', '[{"user_id":"u"}]', 'null', '"str"', '42', 'true'])(
    'valid credentials + %s -> 400 must be a JSON object',
    async (body) => {
      for (const path of ['/v1/events', '/v1/events/batch', '/v1/users/register']) {
        const answer = await api.call('POST', path, { headers: platform.headers, body });
        expect(answer.status, path).toBe(400);
        expect(answer.json.error, path).toBe('Request body must be a JSON object');
      }
    },
  );

  it('unknown route -> 404 even without credentials, in the envelope', async () => {
    for (const [method, path] of [
      ['GET', '/v1/nothing-here'],
      ['POST', '/v1/events/nope'],
      ['GET', '/v1/events'],
      ['DELETE', '/v1/users/register'],
      ['GET', '/'],
    ] as const) {
      const answer = await api.call(method, path);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.json).toMatchObject({ success: false, code: 'not_found' });
    }
  });
});

describe('admin changes take effect', () => {
  it('deactivation and permission changes via the admin API apply to the next request (no cache)', async () => {
    const provider = await createTestProvider(database.db, 'platform');
    const patch = (body: unknown) =>
      api.call('PATCH', `/admin/v1/credentials/${provider.key}`, { headers: api.adminHeaders, body });
    expect((await api.call('POST', '/v1/events', { headers: provider.headers, body: event(1) })).status).toBe(200);

    expect((await patch({ status: 'inactive' })).status).toBe(200);
    expect((await api.call('POST', '/v1/events', { headers: provider.headers, body: event(2) })).status).toBe(403);

    expect((await patch({ status: 'active', permissions: ['users:register'] })).status).toBe(200);
    const events = await api.call('POST', '/v1/events', { headers: provider.headers, body: event(3) });
    expect(events.status).toBe(403);
    expect(events.json.error).toContain('events:write');
    expect(
      (await api.call('POST', '/v1/users/register', { headers: provider.headers, body: { platform_user_id: 'p' } })).status,
    ).toBe(200);

    const deactivate = await api.call('PATCH', `/admin/v1/providers/${provider.id}`, {
      headers: api.adminHeaders,
      body: { status: 'inactive' },
    });
    expect(deactivate.status).toBe(200);
    const register = await api.call('POST', '/v1/users/register', { headers: provider.headers, body: { platform_user_id: 'p' } });
    expect(register.json).toMatchObject(PROVIDER_INACTIVE);
  });

  it('with the default 3 s cache, a deactivation made elsewhere (another replica, the CLI) applies within 5 s', async () => {
    const cached = await createTestApp(database, { CREDENTIAL_CACHE_TTL_MS: '3000' });
    try {
      const provider = await createTestProvider(database.db, 'platform');
      expect((await cached.call('POST', '/v1/events', { headers: provider.headers, body: event(4) })).status).toBe(200);
      const changedAt = Date.now();
      await updateCredential({ db: database.db }, { key: provider.key, status: 'inactive' }); // not through this app: only the TTL can apply it
      expect((await cached.call('POST', '/v1/events', { headers: provider.headers, body: event(5) })).status).toBe(200); // still cached
      await eventually(
        async () =>
          (await cached.call('POST', '/v1/events', { headers: provider.headers, body: event(6) })).status === 403
            ? true
            : undefined,
        { timeoutMs: 5000, intervalMs: 200, what: 'deactivation to apply' },
      );
      expect(Date.now() - changedAt).toBeLessThanOrEqual(5000);
    } finally {
      await cached.close();
    }
  });

  it('with the cache on, a change made through this replica applies to its next request', async () => {
    const cached = await createTestApp(database, { CREDENTIAL_CACHE_TTL_MS: '3000' });
    try {
      const provider = await createTestProvider(database.db, 'platform');
      expect((await cached.call('POST', '/v1/events', { headers: provider.headers, body: event(7) })).status).toBe(200);
      await cached.call('PATCH', `/admin/v1/credentials/${provider.key}`, {
        headers: cached.adminHeaders,
        body: { permissions: [] },
      });
      expect((await cached.call('POST', '/v1/events', { headers: provider.headers, body: event(8) })).status).toBe(403);
      await cached.call('PATCH', `/admin/v1/providers/${provider.id}`, {
        headers: cached.adminHeaders,
        body: { status: 'inactive' },
      });
      const answer = await cached.call('POST', '/v1/events', { headers: provider.headers, body: event(9) });
      expect(answer.json).toMatchObject(PROVIDER_INACTIVE);
    } finally {
      await cached.close();
    }
  });
});
