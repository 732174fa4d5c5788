import { describe, expect, it } from 'vitest';
import { chainBody } from '../testing/chains.js';
import { useTestService } from '../testing/test-service.js';

// Every request body is strict: a field the operation does not define is a
// 400 `unknown_field` naming it (a batch item: that item rejected), never a
// silently dropped value. The free-form objects stay free-form.

const { api, platform, advertiser } = useTestService('unknown_fields');

const event = { user_id: 'u', event_type: 'strict', timestamp: '2026-03-01T10:00:00Z' };
const UUID = '00000000-0000-4000-8000-000000000000';

describe('unknown fields in request bodies', () => {
  const asPlatform = () => platform.headers;
  const asAdvertiser = () => advertiser.headers;
  const asAdmin = () => api.adminHeaders;
  it.each([
    ['POST /v1/events (a typo of user_id)', 'POST', '/v1/events', asPlatform, { ...event, userId: 'u' }, 'userId'],
    [
      'POST /v1/events/batch (the envelope)',
      'POST',
      '/v1/events/batch',
      asPlatform,
      { events: [event], dry_run: true },
      'dry_run',
    ],
    ['POST /v1/users/register', 'POST', '/v1/users/register', asPlatform, { platform_user_id: 'p', country: 'DE' }, 'country'],
    [
      'POST /v1/account-links',
      'POST',
      '/v1/account-links',
      asPlatform,
      { platform_user_id: 'p', advertiser_id: UUID, scope: 'x' },
      'scope',
    ],
    [
      'POST /v1/account-links/complete',
      'POST',
      '/v1/account-links/complete',
      asAdvertiser,
      { connection_token: 'lt_x', advertiser_user_id: 'a', state: 'x' },
      'state',
    ],
    [
      'POST /v1/rewards/claim',
      'POST',
      '/v1/rewards/claim',
      asPlatform,
      { platform_user_id: 'p', task_id: UUID, taskId: UUID },
      'taskId',
    ],
    [
      'POST /admin/v1/providers',
      'POST',
      '/admin/v1/providers',
      asAdmin,
      { type: 'platform', name: 'n', status: 'active' },
      'status',
    ],
    ['PATCH /admin/v1/providers/{id}', 'PATCH', `/admin/v1/providers/${UUID}`, asAdmin, { status: 'active', name: 'n' }, 'name'],
    [
      'POST /admin/v1/providers/{id}/credentials',
      'POST',
      `/admin/v1/providers/${UUID}/credentials`,
      asAdmin,
      { scopes: [] },
      'scopes',
    ],
    [
      'PATCH /admin/v1/credentials/{key}',
      'PATCH',
      '/admin/v1/credentials/pk_x',
      asAdmin,
      { status: 'active', secret: 'x' },
      'secret',
    ],
    [
      'PATCH /admin/v1/quest-chains/{id}',
      'PATCH',
      `/admin/v1/quest-chains/${UUID}`,
      asAdmin,
      { status: 'paused', name: 'n' },
      'name',
    ],
  ] as const)('%s -> 400 unknown_field naming it', async (_label, method, path, headers, body, field) => {
    const answer = await api.call(method, path, { headers: headers(), body });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toMatchObject({ success: false, code: 'unknown_field', param: field });
    expect(answer.json.error).toContain(`${field}: unknown field`);
  });

  it('names a nested unknown field by its path (a task of a chain)', async () => {
    const body = chainBody(platform.id, advertiser.id);
    const answer = await api.call('POST', '/admin/v1/quest-chains', {
      headers: api.adminHeaders,
      body: { ...body, tasks: [body.tasks[0], { ...body.tasks[1], reward: 5 }, body.tasks[2]] },
    });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toMatchObject({ code: 'unknown_field', param: 'tasks.1.reward' });
  });

  it('rejects only the batch item with an unknown field, naming it from the batch body', async () => {
    const answer = await api.call('POST', '/v1/events/batch', {
      headers: platform.headers,
      body: {
        events: [
          { ...event, event_type: 'strict-ok' },
          { ...event, event_type: 'strict-bad', eventType: 'x' },
        ],
      },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data.results[0]).toMatchObject({ status: 'received' });
    expect(answer.json.data.results[1]).toMatchObject({ status: 'rejected', code: 'unknown_field', param: 'events.1.eventType' });
  });

  it('keeps metadata and user_metadata free-form: any keys are stored', async () => {
    const sent = await api.call('POST', '/v1/events', {
      headers: platform.headers,
      body: { ...event, event_type: 'strict-free', metadata: { anything: 1, nested: { deeper: true } } },
    });
    expect(sent.status, sent.text).toBe(200);
    const registered = await api.call('POST', '/v1/users/register', {
      headers: platform.headers,
      body: { platform_user_id: 'free-form', user_metadata: { username: 'ada', favourite_colour: 'green' } },
    });
    expect(registered.status, registered.text).toBe(200);
  });
});
