import { describe, expect, it } from 'vitest';
import { insertMessages } from '../../../shared/db/webhook-message-store.js';
import { createTestProvider } from '../../../shared/testing/fixtures.js';
import { useTestService } from '../../testing/test-service.js';

// Product rules §10, the management half: endpoints, the SSRF guard at creation,
// the cap, tenancy, the message log's pages and filter, replay's refusals.
// (Deliveries run in real processes: e2e/webhooks*.e2e.test.ts.)

const { database, api, platform, advertiser } = useTestService('webhook_endpoints');
// A public address written as a literal: accepted without a DNS lookup (the sandbox may have no DNS).
const PUBLIC_URL = 'https://93.184.215.14/hooks';

const create = (body: unknown, headers = platform.headers) => api.call('POST', '/v1/webhook-endpoints', { headers, body });

describe('POST /v1/webhook-endpoints', () => {
  it('answers the endpoint with a whsec_ secret of at least 24 random bytes, subscribed to every type by default', async () => {
    const answer = await create({ url: PUBLIC_URL });
    expect(answer.status, answer.text).toBe(200);
    const data = answer.json.data;
    expect(data).toMatchObject({
      url: PUBLIC_URL,
      status: 'enabled',
      event_types: [
        'task.completed',
        'chain.completed',
        'reward.claimed',
        'task.reverted',
        'chain.reverted',
        'reward.reversed',
        'leaderboard.finalized',
      ],
    });
    expect(data.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(data.secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const list = await api.call('GET', '/v1/webhook-endpoints', { headers: platform.headers });
    expect(list.json.data.endpoints).toContainEqual({
      id: data.id,
      url: PUBLIC_URL,
      event_types: data.event_types,
      status: 'enabled',
      created_at: data.created_at,
    });
    expect(list.text).not.toContain('whsec_');
  });

  it('gives an advertiser completions and its budget notice, and refuses reward.claimed for it', async () => {
    const defaults = await create({ url: PUBLIC_URL }, advertiser.headers);
    expect(defaults.json.data.event_types).toEqual([
      'task.completed',
      'chain.completed',
      'task.reverted',
      'chain.reverted',
      'chain.budget_exhausted',
    ]);
    const claims = await create({ url: PUBLIC_URL, event_types: ['chain.completed', 'reward.claimed'] }, advertiser.headers);
    expect(claims.status).toBe(400);
    expect(claims.json).toMatchObject({ code: 'invalid_field', param: 'event_types.1' });
  });

  it("refuses a platform the advertiser's budget notice", async () => {
    const budget = await create({ url: PUBLIC_URL, event_types: ['task.completed', 'chain.budget_exhausted'] });
    expect(budget.status).toBe(400);
    expect(budget.json).toMatchObject({
      code: 'invalid_field',
      param: 'event_types.1',
      error: 'event_types: chain.budget_exhausted is sent to advertisers only',
    });
  });

  it.each([
    ['an unknown event type', { url: PUBLIC_URL, event_types: ['task.started'] }, 'invalid_field', 'event_types.0'],
    ['no url', {}, 'missing_field', 'url'],
    ['not a URL', { url: 'hooks.example.com' }, 'invalid_field', 'url'],
    ['an ftp URL', { url: 'ftp://93.184.215.14/x' }, 'invalid_field', 'url'],
    ['plain http', { url: 'http://93.184.215.14/hooks' }, 'webhook_url_refused', 'url'],
    ['loopback', { url: 'https://127.0.0.1/hooks' }, 'webhook_url_refused', 'url'],
    ['loopback written short', { url: 'https://127.1/hooks' }, 'webhook_url_refused', 'url'],
    ['a private address', { url: 'https://10.0.0.1/hooks' }, 'webhook_url_refused', 'url'],
    ['link-local (cloud metadata)', { url: 'https://169.254.169.254/latest' }, 'webhook_url_refused', 'url'],
    ['the unspecified address', { url: 'https://0.0.0.0/hooks' }, 'webhook_url_refused', 'url'],
    ['IPv6 loopback', { url: 'https://[::1]/hooks' }, 'webhook_url_refused', 'url'],
    ['IPv4-mapped IPv6 loopback', { url: 'https://[::ffff:127.0.0.1]/hooks' }, 'webhook_url_refused', 'url'],
    ['IPv6 unique-local', { url: 'https://[fd00::1]/hooks' }, 'webhook_url_refused', 'url'],
    ['a hostname resolving to loopback', { url: 'https://localhost/hooks' }, 'webhook_url_refused', 'url'],
    ['credentials in the URL', { url: 'https://user:pw@93.184.215.14/hooks' }, 'webhook_url_refused', 'url'],
  ])('refuses %s with 400 naming the field', async (_label, body, code, param) => {
    const answer = await create(body);
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toMatchObject({ success: false, code, param });
  });

  it('allows at most 10 endpoints per provider', async () => {
    const owner = await createTestProvider(database.db, 'platform');
    for (let i = 0; i < 10; i += 1) expect((await create({ url: `${PUBLIC_URL}/${i}` }, owner.headers)).status).toBe(200);
    const eleventh = await create({ url: `${PUBLIC_URL}/10` }, owner.headers);
    expect(eleventh.status).toBe(400);
    expect(eleventh.json.code).toBe('webhook_endpoint_limit');
    // A deleted one frees its place.
    const [first] = (await api.call('GET', '/v1/webhook-endpoints', { headers: owner.headers })).json.data.endpoints;
    expect((await api.call('DELETE', `/v1/webhook-endpoints/${first.id}`, { headers: owner.headers })).json.data).toEqual({
      id: first.id,
      deleted: true,
    });
    expect((await create({ url: `${PUBLIC_URL}/10` }, owner.headers)).status).toBe(200);
  });

  it('needs webhooks:manage', async () => {
    const without = await createTestProvider(database.db, 'platform', { permissions: ['events:write'] });
    const answer = await create({ url: PUBLIC_URL }, without.headers);
    expect(answer.status).toBe(403);
    expect(answer.json).toMatchObject({ code: 'permission_missing' });
    expect(answer.json.error).toContain('webhooks:manage');
  });
});

describe('tenancy', () => {
  it("answers another provider's endpoint as unknown (404) for delete, messages and replay", async () => {
    const theirs = (await create({ url: PUBLIC_URL }, advertiser.headers)).json.data.id;
    const [messageId] = await insertMessages(database.db, [
      { providerId: advertiser.id, type: 'task.completed', fact: `t/${theirs}`, data: {} },
    ]);
    for (const [method, path] of [
      ['DELETE', `/v1/webhook-endpoints/${theirs}`],
      ['GET', `/v1/webhook-endpoints/${theirs}/messages`],
      ['POST', `/v1/webhook-endpoints/${theirs}/messages/${messageId}/replay`],
    ] as const) {
      const answer = await api.call(method, path, { headers: platform.headers });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.json).toMatchObject({ code: 'not_found', param: 'id' });
    }
    expect(
      (await api.call('GET', '/v1/webhook-endpoints', { headers: platform.headers })).json.data.endpoints.map(
        (e: { id: string }) => e.id,
      ),
    ).not.toContain(theirs);
  });
});

describe('GET /v1/webhook-endpoints/{id}/messages', () => {
  it('pages newest first with has_more and starting_after, filters by status, and refuses a foreign cursor', async () => {
    const owner = await createTestProvider(database.db, 'platform');
    const endpoint = (await create({ url: PUBLIC_URL }, owner.headers)).json.data.id;
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1)
      ids.push(
        ...(await insertMessages(database.db, [
          { providerId: owner.id, type: 'reward.claimed', fact: `reward.claimed/${i}`, data: { i } },
        ])),
      );
    const path = `/v1/webhook-endpoints/${endpoint}/messages`;
    const first = await api.call('GET', `${path}?limit=2`, { headers: owner.headers });
    expect(first.status, first.text).toBe(200);
    expect(first.json.data.messages.map((m: { id: string }) => m.id)).toEqual([ids[4], ids[3]]);
    expect(first.json.data.has_more).toBe(true);
    expect(first.json.data.messages[0]).toMatchObject({ type: 'reward.claimed', status: 'pending', attempts: [] });
    const rest = await api.call('GET', `${path}?limit=10&starting_after=${ids[3]}`, { headers: owner.headers });
    expect(rest.json.data).toMatchObject({ has_more: false });
    expect(rest.json.data.messages.map((m: { id: string }) => m.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect((await api.call('GET', `${path}?status=delivered`, { headers: owner.headers })).json.data).toEqual({
      messages: [],
      has_more: false,
    });
    expect((await api.call('GET', `${path}?status=pending`, { headers: owner.headers })).json.data.messages).toHaveLength(5);
    const badStatus = await api.call('GET', `${path}?status=lost`, { headers: owner.headers });
    expect(badStatus.json).toMatchObject({ code: 'invalid_field', param: 'status' });
    const foreign = await api.call('GET', `${path}?starting_after=msg_${'0'.repeat(32)}`, { headers: owner.headers });
    expect(foreign.json).toMatchObject({ code: 'invalid_field', param: 'starting_after' });
    const malformed = await api.call('GET', `${path}?starting_after=nope`, { headers: owner.headers });
    expect(malformed.json).toMatchObject({ code: 'invalid_field', param: 'starting_after' });
  });

  it('answers 404 naming message_id for a message of another endpoint', async () => {
    const owner = await createTestProvider(database.db, 'platform');
    const [a, b] = [
      (await create({ url: PUBLIC_URL }, owner.headers)).json.data.id,
      (await create({ url: PUBLIC_URL }, owner.headers)).json.data.id,
    ];
    const [messageOfB] = await insertMessages(database.db, [
      { providerId: owner.id, type: 'reward.claimed', fact: 'reward.claimed/x', data: {} },
    ]);
    expect(messageOfB).toBeDefined();
    // Both endpoints got one (fan-out); take the one of b.
    const ofB = (await api.call('GET', `/v1/webhook-endpoints/${b}/messages`, { headers: owner.headers })).json.data.messages[0]
      .id;
    const answer = await api.call('POST', `/v1/webhook-endpoints/${a}/messages/${ofB}/replay`, { headers: owner.headers });
    expect(answer.status).toBe(404);
    expect(answer.json).toMatchObject({ code: 'not_found', param: 'message_id' });
  });
});
