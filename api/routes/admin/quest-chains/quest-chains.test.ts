import { and, count, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { chainRewards, questChains, questTasks, users } from '../../../../shared/db/schema/index.js';
import { senderUserId } from '../../../../shared/domain/ids.js';
import { formatIsoMicros } from '../../../../shared/domain/timestamp.js';
import { TEST_ADMIN_TOKEN } from '../../../../shared/testing/admin-token.js';
import { createTestProvider, type TestProvider } from '../../../../shared/testing/fixtures.js';
import { chainBody, questConditions, taskBody } from '../../../testing/chains.js';
import { createTestApp } from '../../../testing/test-app.js';
import { useTestService } from '../../../testing/test-service.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const { database, api, platform, advertiser } = useTestService('admin_chains');
let otherPlatform: TestProvider;

beforeAll(async () => {
  otherPlatform = await createTestProvider(database.db, 'platform');
});

const create = (body: unknown, headers: Record<string, string> = api.adminHeaders) =>
  api.call('POST', '/admin/v1/quest-chains', { headers, body });
const storedChains = async () => (await database.db.select({ count: count() }).from(questChains))[0]!.count;

describe('admin token', () => {
  it('answers 401 without a bearer token or with a wrong one', async () => {
    const body = chainBody(platform.id, advertiser.id);
    const attempts: Record<string, string>[] = [
      { 'content-type': 'application/json' },
      { 'content-type': 'application/json', authorization: 'Bearer wrong-token-0123456789' },
    ];
    for (const [index, headers] of attempts.entries()) {
      expect((await create(body, headers)).status).toBe(401);
      expect((await api.call('GET', '/admin/v1/quest-chains', { headers })).status).toBe(401);
      expect((await api.call('GET', `/admin/v1/quest-chains/${platform.id}`, { headers })).status).toBe(401);
      const patch = await api.call('PATCH', `/admin/v1/quest-chains/${platform.id}`, { headers, body: { status: 'paused' } });
      expect(patch.status).toBe(401);
      expect(patch.json).toMatchObject({ success: false, code: index === 0 ? 'missing_credentials' : 'invalid_credentials' });
    }
  });

  it('answers 404 for every chain route when ADMIN_TOKEN is not configured', async () => {
    const closed = await createTestApp(database, { ADMIN_TOKEN: '' });
    try {
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
      const answers = [
        await closed.call('POST', '/admin/v1/quest-chains', { headers, body: chainBody(platform.id, advertiser.id) }),
        await closed.call('GET', '/admin/v1/quest-chains', { headers }),
        await closed.call('GET', `/admin/v1/quest-chains/${platform.id}`, { headers }),
        await closed.call('PATCH', `/admin/v1/quest-chains/${platform.id}`, { headers, body: { status: 'paused' } }),
      ];
      expect(answers.map((a) => a.status)).toEqual([404, 404, 404, 404]);
      expect(answers[0]!.json).toMatchObject({ success: false, code: 'not_found' });
    } finally {
      await closed.close();
    }
  });
});

describe('POST /admin/v1/quest-chains', () => {
  it('stores the chain, its tasks and reward, and answers them with ids', async () => {
    const body = {
      ...chainBody(platform.id, advertiser.id, {
        tasks: [
          { event: 'registration' },
          {
            event: 'transaction',
            min_amount: 10,
            currency: 'usd',
            after: '2026-01-01T00:00:00+02:00',
            before: '2026-02-01T00:00:00.123456Z',
          },
        ],
      }),
      start_date: '2026-03-01T00:00:00+01:00',
      end_date: '2026-03-31T18:30:00-05:30',
    };
    const answer = await create(body);
    expect(answer.status).toBe(200);
    const { quest_chain, tasks, chain_reward } = answer.json.data;
    expect(quest_chain).toMatchObject({
      name: 'Welcome chain',
      description: 'Do three things',
      logo_url: 'https://example.com/logo.png',
      background_image_url: null,
      // Any offset is accepted and stored as the instant; answers are UTC with milliseconds.
      start_date: '2026-02-28T23:00:00.000Z',
      end_date: '2026-04-01T00:00:00.000Z',
      status: 'active',
      allow_any_order: false,
      platform_id: platform.id,
      advertiser_id: advertiser.id,
    });
    expect(quest_chain.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(quest_chain.created_at).toMatch(ISO_MS);
    expect(tasks.map((t: { sequence_number: number }) => t.sequence_number)).toEqual([1, 2]);
    expect(tasks[1]).toMatchObject({
      name: 'Task 2',
      description: null,
      condition_event_type: 'transaction',
      condition_min_amount: 10,
      condition_currency: 'usd',
      condition_after_timestamp: '2025-12-31T22:00:00.000Z',
      condition_before_timestamp: '2026-02-01T00:00:00.123Z',
      reward_type: 'points',
      reward_name: '20 points',
      reward_value: 20,
      reward_image_urls: null,
    });
    expect(tasks[0].condition_min_amount).toBeNull();
    expect(chain_reward).toMatchObject({ type: 'mystery_box', name: 'Mystery box', value: 50, image_urls: null });
    expect(chain_reward.id).toMatch(/^[0-9a-f-]{36}$/);

    const [storedTasks] = await database.db
      .select({ count: count() })
      .from(questTasks)
      .where(eq(questTasks.chainId, quest_chain.id));
    const [storedRewards] = await database.db
      .select({ count: count() })
      .from(chainRewards)
      .where(eq(chainRewards.chainId, quest_chain.id));
    const [second] = await database.db
      .select({ before: questTasks.conditionBeforeTimestamp })
      .from(questTasks)
      .where(and(eq(questTasks.chainId, quest_chain.id), eq(questTasks.sequenceNumber, 2)));
    // The microseconds of the stored instant (`...SS.uuuuuuZ`).
    const stored = {
      tasks: storedTasks!.count,
      rewards: storedRewards!.count,
      before: formatIsoMicros(second!.before!).slice(-7, -1),
    };
    // The stored instant keeps its microseconds; only the answer is cut to milliseconds.
    expect(stored).toEqual({ tasks: 2, rewards: 1, before: '123456' });
  });

  it('answers chain_reward null without a reward, and keeps the status, order flag and image urls given', async () => {
    const body = chainBody(platform.id, advertiser.id, { reward: false, status: 'draft', anyOrder: true });
    body.tasks[0] = { ...body.tasks[0]!, reward_image_urls: ['https://example.com/a.png'] } as (typeof body.tasks)[0];
    const answer = await create(body);
    expect(answer.status).toBe(200);
    expect(answer.json.data.chain_reward).toBeNull();
    expect(answer.json.data.quest_chain).toMatchObject({ status: 'draft', allow_any_order: true });
    expect(answer.json.data.tasks[0].reward_image_urls).toEqual(['https://example.com/a.png']);
  });

  it("keeps a spec's counted, summed and streak conditions as the test helpers write them (chainBody, taskBody)", async () => {
    const answer = await create(
      chainBody(platform.id, advertiser.id, {
        tasks: [{ min_count: 3 }, { min_total: 500, currency: 'USD' }, { streak: { periods: 2, every: 'week' } }],
      }),
    );
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(questConditions(answer.json.data.tasks)).toEqual([
      [3, null, null],
      [1, 500, null],
      [1, null, { periods: 2, every: 'week' }],
    ]);
  });

  it('keeps a reward hold (0 by default), and refuses one that is negative, fractional or over 90 days', async () => {
    const held = await create({ ...chainBody(platform.id, advertiser.id), reward_hold_seconds: 3600 });
    expect(held.status, held.text).toBe(200);
    expect(held.json.data.quest_chain.reward_hold_seconds).toBe(3600);
    expect((await create(chainBody(platform.id, advertiser.id))).json.data.quest_chain.reward_hold_seconds).toBe(0);
    for (const value of [-1, 1.5, 90 * 86_400 + 1, '60']) {
      const refused = await create({ ...chainBody(platform.id, advertiser.id), reward_hold_seconds: value });
      expect(refused.status, String(value)).toBe(400);
      expect(refused.json.param).toBe('reward_hold_seconds');
    }
  });

  it('keeps a budget, a claim cap and a completion cap (none by default) with nothing spent or taken, and refuses bad ones naming the field', async () => {
    const limited = await create({
      ...chainBody(platform.id, advertiser.id),
      budget: 5000,
      max_claims_per_reward: 100,
      max_completions: 1000,
    });
    expect(limited.status, limited.text).toBe(200);
    expect(limited.json.data.quest_chain).toMatchObject({
      budget: 5000,
      budget_spent: 0,
      max_claims_per_reward: 100,
      max_completions: 1000,
      admitted_users: 0,
    });
    expect((await create(chainBody(platform.id, advertiser.id))).json.data.quest_chain).toMatchObject({
      budget: null,
      budget_spent: 0,
      max_claims_per_reward: null,
      max_completions: null,
      admitted_users: 0,
    });
    const bad = [
      ['budget', -1],
      ['budget', 'lots'],
      ['max_claims_per_reward', 0],
      ['max_claims_per_reward', 2.5],
      ['max_completions', 0],
      ['max_completions', 'many'],
    ] as const;
    for (const [field, value] of bad) {
      const refused = await create({ ...chainBody(platform.id, advertiser.id), [field]: value });
      expect(refused.status, `${field}=${value}`).toBe(400);
      expect(refused.json.param).toBe(field);
    }
  });

  it("flags the platform's existing users for re-evaluation, in the same transaction", async () => {
    for (const provider of [platform, otherPlatform]) {
      const answer = await api.call('POST', '/v1/users/register', {
        headers: provider.headers,
        body: { platform_user_id: 'flag-me' },
      });
      expect(answer.status).toBe(200);
    }
    await database.db.update(users).set({ needsEvaluation: false });
    expect((await create(chainBody(platform.id, advertiser.id))).status).toBe(200);
    const rows = await database.db
      .select({ platform_id: users.platformId, needs_evaluation: users.needsEvaluation })
      .from(users)
      .where(eq(users.platformUserId, senderUserId('flag-me')));
    const flagged = Object.fromEntries(rows.map((row) => [row.platform_id, row.needs_evaluation]));
    expect(flagged).toEqual({ [platform.id]: true, [otherPlatform.id]: false });
  });

  const tooMany = Array.from({ length: 101 }, (_, i) => taskBody({}, i));
  const base = () => chainBody(platform.id, advertiser.id);
  const cases: [string, () => unknown, string][] = [
    ['platform_id is an advertiser', () => ({ ...base(), platform_id: advertiser.id }), 'platform_id'],
    ['platform_id is unknown', () => ({ ...base(), platform_id: '00000000-0000-4000-8000-000000000000' }), 'platform_id'],
    ['platform_id is not a uuid', () => ({ ...base(), platform_id: 'nope' }), 'platform_id'],
    ['advertiser_id is a platform', () => ({ ...base(), advertiser_id: otherPlatform.id }), 'advertiser_id'],
    ['advertiser_id is missing', () => ({ ...base(), advertiser_id: undefined }), 'advertiser_id'],
    ['there are no tasks', () => ({ ...base(), tasks: [] }), 'tasks'],
    ['tasks are missing', () => ({ ...base(), tasks: undefined }), 'tasks'],
    [
      'sequence numbers have a gap',
      () => chainBody(platform.id, advertiser.id, { tasks: [{ sequence_number: 1 }, { sequence_number: 3 }] }),
      'sequence_number',
    ],
    [
      'sequence numbers do not start at 1',
      () => chainBody(platform.id, advertiser.id, { tasks: [{ sequence_number: 2 }, { sequence_number: 3 }] }),
      'sequence_number',
    ],
    [
      'sequence numbers repeat',
      () => chainBody(platform.id, advertiser.id, { tasks: [{ sequence_number: 1 }, { sequence_number: 1 }] }),
      'sequence_number',
    ],
    [
      'a sequence number is not an integer',
      () => chainBody(platform.id, advertiser.id, { tasks: [{ sequence_number: 1.5 }] }),
      'sequence_number',
    ],
    [
      'end_date equals start_date',
      () => ({ ...base(), start_date: '2026-01-01T00:00:00Z', end_date: '2026-01-01T01:00:00+01:00' }),
      'end_date',
    ],
    [
      'end_date is before start_date',
      () => ({ ...base(), start_date: '2026-01-02T00:00:00Z', end_date: '2026-01-01T00:00:00Z' }),
      'end_date',
    ],
    ['start_date has no offset', () => ({ ...base(), start_date: '2026-01-01T00:00:00' }), 'start_date'],
    ['start_date is not a date', () => ({ ...base(), start_date: '2026-02-30T00:00:00Z' }), 'start_date'],
    ['end_date has 7 fractional digits', () => ({ ...base(), end_date: '2030-01-01T00:00:00.1234567Z' }), 'end_date'],
    [
      'a task window is empty',
      () => chainBody(platform.id, advertiser.id, { tasks: [{ after: '2026-01-02T00:00:00Z', before: '2026-01-01T00:00:00Z' }] }),
      'condition_before_timestamp',
    ],
    [
      'a task bound is not a timestamp',
      () => chainBody(platform.id, advertiser.id, { tasks: [{ after: 'yesterday' }] }),
      'condition_after_timestamp',
    ],
    ['name is empty', () => ({ ...base(), name: ' ' }), 'name'],
    ['name is over 200 characters', () => ({ ...base(), name: 'n'.repeat(201) }), 'name'],
    ['description is over 2000 characters', () => ({ ...base(), description: 'd'.repeat(2001) }), 'description'],
    ['logo_url is not a URL', () => ({ ...base(), logo_url: 'javascript:alert(1)' }), 'logo_url'],
    [
      'background_image_url is over 2048 characters',
      () => ({ ...base(), background_image_url: `https://example.com/${'a'.repeat(2040)}` }),
      'background_image_url',
    ],
    ['status is unknown', () => ({ ...base(), status: 'live' }), 'status'],
    ['there are over 100 tasks', () => ({ ...base(), tasks: tooMany }), 'tasks'],
    [
      'an event type is over 100 characters',
      () => chainBody(platform.id, advertiser.id, { tasks: [{ event: 'e'.repeat(101) }] }),
      'condition_event_type',
    ],
    [
      'a currency is over 10 characters',
      () => chainBody(platform.id, advertiser.id, { tasks: [{ currency: 'c'.repeat(11) }] }),
      'condition_currency',
    ],
    [
      'a minimum amount is negative',
      () => chainBody(platform.id, advertiser.id, { tasks: [{ min_amount: -1 }] }),
      'condition_min_amount',
    ],
    [
      'a reward value is not a number',
      () => ({ ...base(), tasks: [{ ...taskBody({}, 0), reward_value: '10' }] }),
      'reward_value',
    ],
    [
      'a task has an unknown field',
      () => ({ ...base(), tasks: [{ ...taskBody({}, 0), condition_event: 'x' }] }),
      'condition_event',
    ],
    ['the body has an unknown field', () => ({ ...base(), allow_any_ordr: true }), 'allow_any_ordr'],
    ['a text contains NUL', () => ({ ...base(), name: 'a\u0000b' }), 'name'],
    ['the chain reward has no name', () => ({ ...base(), chain_reward: { type: 'box' } }), 'chain_reward.name'],
  ];
  it.each(cases)('answers 400 naming the field when %s', async (label, body, field) => {
    const before = await storedChains();
    const answer = await create(body());
    expect(answer.status).toBe(400);
    const code = label.includes('unknown field')
      ? 'unknown_field'
      : /missing|has no name/.test(label)
        ? 'missing_field'
        : 'invalid_field';
    expect(answer.json).toMatchObject({ success: false, code, param: expect.any(String) });
    expect(answer.json.error).toContain(field);
    expect(await storedChains()).toBe(before);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const answer = await create('{"platform_id":');
    expect(answer.status).toBe(400);
  });
});

describe('GET, list and PATCH', () => {
  it('returns a chain by id as created, 404 for an unknown id and 400 for a malformed one', async () => {
    const created = await create(chainBody(platform.id, advertiser.id, { name: 'by id' }));
    const found = await api.call('GET', `/admin/v1/quest-chains/${created.json.data.quest_chain.id}`, {
      headers: api.adminHeaders,
    });
    expect(found.status).toBe(200);
    expect(found.json.data).toEqual(created.json.data);
    const unknown = await api.call('GET', '/admin/v1/quest-chains/00000000-0000-4000-8000-000000000000', {
      headers: api.adminHeaders,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('not_found');
    const malformed = await api.call('GET', '/admin/v1/quest-chains/not-a-uuid', { headers: api.adminHeaders });
    expect(malformed.status).toBe(400);
    expect(malformed.json.error).toContain('id');
  });

  it('lists newest first, optionally for one platform', async () => {
    const first = await create(chainBody(otherPlatform.id, advertiser.id, { name: 'other 1' }));
    const second = await create(chainBody(otherPlatform.id, advertiser.id, { name: 'other 2' }));
    const all = await api.call('GET', '/admin/v1/quest-chains', { headers: api.adminHeaders });
    expect(all.status).toBe(200);
    expect(all.json.data.quest_chains.length).toBe(await storedChains());
    expect(all.json.data.has_more).toBe(false);
    const createdTimes = all.json.data.quest_chains.map((d: { quest_chain: { created_at: string } }) => d.quest_chain.created_at);
    expect([...createdTimes].sort().reverse()).toEqual(createdTimes);
    const filtered = await api.call('GET', `/admin/v1/quest-chains?platform_id=${otherPlatform.id}`, {
      headers: api.adminHeaders,
    });
    expect(filtered.json.data.quest_chains.map((d: { quest_chain: { id: string } }) => d.quest_chain.id)).toEqual([
      second.json.data.quest_chain.id,
      first.json.data.quest_chain.id,
    ]);
    expect(filtered.json.data.quest_chains[0].tasks).toHaveLength(3);
    const bad = await api.call('GET', '/admin/v1/quest-chains?platform_id=x', { headers: api.adminHeaders });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toContain('platform_id');
  });

  it('sets any status and answers the chain; 400 for an unknown status, 404 for an unknown chain', async () => {
    const created = await create(chainBody(platform.id, advertiser.id, { name: 'status' }));
    const path = `/admin/v1/quest-chains/${created.json.data.quest_chain.id}`;
    for (const status of ['paused', 'ended', 'draft', 'active']) {
      const answer = await api.call('PATCH', path, { headers: api.adminHeaders, body: { status } });
      expect(answer.status).toBe(200);
      expect(answer.json.data.quest_chain.status).toBe(status);
      expect(answer.json.data.tasks).toEqual(created.json.data.tasks);
    }
    expect((await api.call('PATCH', path, { headers: api.adminHeaders, body: { status: 'live' } })).json.error).toContain(
      'status',
    );
    expect((await api.call('PATCH', path, { headers: api.adminHeaders, body: {} })).status).toBe(400);
    const unknown = await api.call('PATCH', '/admin/v1/quest-chains/00000000-0000-4000-8000-000000000000', {
      headers: api.adminHeaders,
      body: { status: 'paused' },
    });
    expect(unknown.status).toBe(404);
  });
});
