import { randomBytes } from 'node:crypto';
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../shared/auth/secrets.js';
import { pendingEvents } from '../shared/db/schema/index.js';
import { httpClient } from '../shared/testing/api-client.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { eventually } from '../shared/testing/eventually.js';
import { serviceEnv } from '../shared/testing/service-env.js';
import { useTestData } from '../shared/testing/test-data.js';
import { clientOf, type ServiceProcess, startService } from './harness/service.js';

// Public interface, Authentication 5: the secret "is never logged". Both
// processes run at debug level; everything they write is searched for every
// secret the test handled (API secrets, the admin token).

const ADMIN_TOKEN = `admin-${randomBytes(16).toString('hex')}`;

const { database } = useTestData('secrets_in_logs', { providers: false });
let api: ServiceProcess;
let worker: ServiceProcess;

beforeAll(async () => {
  const env = serviceEnv({
    databaseUrl: database.url,
    queuePrefix: `logs-${uniqueSuffix()}`,
    env: {
      // A token of this test's own: nothing else could have written it into a log.
      ADMIN_TOKEN,
      LOG_LEVEL: 'debug',
      RECONCILE_INTERVAL_MS: '300',
      RECONCILE_MIN_AGE_MS: '300',
      // Short, so the deactivation below applies quickly.
      CREDENTIAL_CACHE_TTL_MS: '300',
    },
  });
  api = await startService('api', env);
  worker = await startService('worker', env);
});
afterAll(async () => {
  await api?.stop('SIGKILL');
  await worker?.stop('SIGKILL');
});

const http = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  clientOf(api).call(method, path, { headers, body });

describe('logs never contain a secret', () => {
  it('through good and bad requests, processing and shutdown', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const provider = await http('POST', '/admin/v1/providers', admin, { type: 'platform', name: 'log test' });
    const created = await http('POST', `/admin/v1/providers/${provider.json.data.id}/credentials`, admin, {});
    expect(created.status).toBe(200);
    const { key, secret } = created.json.data as { key: string; secret: string };
    const good = { 'x-api-key': key, 'x-api-secret': secret };
    const event = { user_id: 'logged-user', event_type: 'deposit', timestamp: '2026-03-01T10:00:00Z', amount: 5 };

    const expected: [string, Promise<{ status: number }>, number][] = [
      ['register', http('POST', '/v1/users/register', good, { platform_user_id: 'logged-user' }), 200],
      ['event', http('POST', '/v1/events', good, { ...event, reference: 'ref-1' }), 200],
      [
        'batch with a rejected item',
        http('POST', '/v1/events/batch', good, { events: [{ ...event, event_type: 'kyc' }, { user_id: '' }] }),
        200,
      ],
      ['active read', http('GET', '/v1/quest-chains/active/logged-user', good), 200],
      ['validation error', http('POST', '/v1/users/register', good, { platform_user_id: 'x', country_code: 'XYZ' }), 400],
      ['not JSON', http('POST', '/v1/events', good, '{"user_id": nope'), 400],
      ['oversize', http('POST', '/v1/events', good, { ...event, metadata: { pad: 'x'.repeat(70_000) } }), 413],
      ['wrong secret', http('POST', '/v1/events', { ...good, 'x-api-secret': `${secret}x` }, event), 401],
      ['secret sent as the key', http('POST', '/v1/events', { 'x-api-key': secret, 'x-api-secret': secret }, event), 401],
      ['key missing', http('POST', '/v1/events', { 'x-api-secret': secret }, event), 401],
      ['secret as admin bearer', http('GET', '/admin/v1/providers', { authorization: `Bearer ${secret}` }), 401],
      ['wrong admin token', http('GET', '/admin/v1/providers', { authorization: `Bearer ${ADMIN_TOKEN}-wrong` }), 401],
      // A route in neither OpenAPI document, on purpose: its answer has no operation to be checked against.
      ['unknown route with credentials', httpClient(api.url).call('GET', '/v1/nowhere', { headers: good }), 404],
    ];
    for (const [label, answer, status] of expected) expect((await answer).status, label).toBe(status);

    // A deactivated credential (403), then the worker's processing of the accepted events.
    expect((await http('PATCH', `/admin/v1/credentials/${key}`, admin, { status: 'inactive' })).status).toBe(200);
    await eventually(async () => ((await http('POST', '/v1/events', good, event)).status === 403 ? true : undefined), {
      timeoutMs: 5000,
      what: 'the deactivation to apply (credential cache)',
    });
    await eventually(
      async () => {
        const [row] = await database.db.select({ left: count() }).from(pendingEvents);
        return row?.left === 0 && worker.lines().some((line) => line.includes('"event job done"')) ? true : undefined;
      },
      { what: 'events processed' },
    );

    // Shutdown logs count too.
    await api.stop('SIGTERM');
    await worker.stop('SIGTERM');

    const output = [...api.lines(), ...worker.lines()].join('\n');
    // The search must have something to search: requests (failed ones included) and jobs were logged.
    expect(api.lines().filter((line) => line.includes('"msg":"request"')).length).toBeGreaterThanOrEqual(expected.length);
    expect(output).toContain('"status":401');
    expect(output).toContain('"event job done"');
    for (const [label, value] of [
      ['secret', secret],
      ['secret without its prefix', secret.slice(3)],
      ['secret hash', hashSecret(secret)],
      ['admin token', ADMIN_TOKEN],
    ] as const) {
      expect(output.includes(value), `${label} appears in the logs`).toBe(false);
    }
  });
});
