import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { users } from '../../../../shared/db/schema/index.js';
import { type ServiceUserId, serviceUserId } from '../../../../shared/domain/ids.js';
import { dateToMicros, parseUtcTimestamp } from '../../../../shared/domain/timestamp.js';
import { createTestProvider, type TestProvider } from '../../../../shared/testing/fixtures.js';
import { storeClaim, storeCompletion } from '../../../../shared/testing/progress.js';
import { chainBody, DAY_MS, iso } from '../../../testing/chains.js';
import { useTestService } from '../../../testing/test-service.js';

const HOUR_MS = 60 * 60 * 1000;

// Progress is written straight into the database here, without the worker's change notices that keep
// cached answers current: no caching in this file (conditional-read.test.ts covers the cache).
const { database, api, advertiser } = useTestService('active_read', { config: { CHAIN_CACHE_TTL_MS: '0' } });

/** A fresh platform with one registered user, so each test owns its chains. */
async function platformWithUser(platformUserId = 'alice') {
  const platform = await createTestProvider(database.db, 'platform');
  const registered = await api.call('POST', '/v1/users/register', {
    headers: platform.headers,
    body: { platform_user_id: platformUserId },
  });
  expect(registered.status).toBe(200);
  return { platform, userId: registered.json.data.user_id as ServiceUserId, platformUserId };
}

async function createChain(body: ReturnType<typeof chainBody>) {
  const answer = await api.call('POST', '/admin/v1/quest-chains', { headers: api.adminHeaders, body });
  expect(answer.status).toBe(200);
  return answer.json.data as { quest_chain: { id: string }; tasks: { id: string }[] };
}

const read = (platform: TestProvider, platformUserId: string) =>
  api.call('GET', `/v1/quest-chains/active/${encodeURIComponent(platformUserId)}`, { headers: platform.headers });

describe('GET /v1/quest-chains/active/{platformUserId}: access and input', () => {
  it('answers 401 without credentials and 403 to advertisers and to platforms without quest_chains:read', async () => {
    const { platform } = await platformWithUser();
    const limited = await createTestProvider(database.db, 'platform', { permissions: ['users:register'] });
    expect((await api.call('GET', '/v1/quest-chains/active/alice')).status).toBe(401);
    expect((await read(advertiser, 'alice')).status).toBe(403);
    const denied = await read(limited, 'alice');
    expect(denied.status).toBe(403);
    expect(denied.json.error).toContain('quest_chains:read');
    expect((await read(platform, 'alice')).status).toBe(200);
  });

  it('answers 400 naming platformUserId when it is over 255 characters or not storable', async () => {
    const { platform } = await platformWithUser();
    for (const id of ['x'.repeat(256), 'a\u0000b']) {
      const answer = await read(platform, id);
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ success: false, code: 'invalid_field', param: 'platformUserId' });
      expect(answer.json.error).toContain('platformUserId');
    }
    expect((await read(platform, 'x'.repeat(255))).status).toBe(200);
  });
});

describe('GET /v1/quest-chains/active/{platformUserId}: who is asked about', () => {
  it('answers an unknown user with exists false, no chains and a live token for that platform user', async () => {
    const { platform } = await platformWithUser();
    await createChain(chainBody(platform.id, advertiser.id));
    const answer = await read(platform, 'nobody');
    expect(answer.status).toBe(200);
    expect(answer.json.success).toBe(true);
    expect(answer.json.data).toEqual({
      liveUpdates: { token: expect.any(String), baselineTimestamp: null },
      quest_chains: [],
      claimable_tasks: [],
      user: { exists: false },
    });
    expect(api.deps.liveTokens.verify(answer.json.data.liveUpdates.token)).toEqual({
      platformId: platform.id,
      platformUserId: 'nobody',
      livemode: true,
    });
  });

  it("answers another platform's user exactly as an unknown one", async () => {
    const mine = await platformWithUser('shared-id');
    const theirs = await platformWithUser('bob');
    await createChain(chainBody(theirs.platform.id, advertiser.id));
    await database.db
      .update(users)
      .set({ progressChangedAt: dateToMicros(new Date()) })
      .where(eq(users.id, serviceUserId(theirs.userId)));
    const answer = await read(mine.platform, 'bob');
    expect(answer.status).toBe(200);
    expect(answer.json.data).toEqual({
      liveUpdates: { token: expect.any(String), baselineTimestamp: null },
      quest_chains: [],
      claimable_tasks: [],
      user: { exists: false },
    });
    expect(api.deps.liveTokens.verify(answer.json.data.liveUpdates.token)).toEqual({
      platformId: mine.platform.id,
      platformUserId: 'bob',
      livemode: true,
    });
  });

  it('answers a known user without active chains with exists true and empty lists', async () => {
    const { platform, platformUserId } = await platformWithUser();
    const answer = await read(platform, platformUserId);
    expect(answer.status).toBe(200);
    expect(answer.json.data).toEqual({
      liveUpdates: { token: expect.any(String), baselineTimestamp: null },
      quest_chains: [],
      claimable_tasks: [],
      user: { exists: true },
    });
  });
});

describe('GET /v1/quest-chains/active/{platformUserId}: which chains', () => {
  it('lists only chains with status active whose window holds now', async () => {
    const { platform, platformUserId } = await platformWithUser();
    const now = Date.now();
    const current = await createChain(chainBody(platform.id, advertiser.id, { name: 'current' }));
    await createChain(chainBody(platform.id, advertiser.id, { name: 'draft', status: 'draft' }));
    await createChain(chainBody(platform.id, advertiser.id, { name: 'ended status', status: 'ended' }));
    const paused = await createChain(chainBody(platform.id, advertiser.id, { name: 'paused' }));
    await api.call('PATCH', `/admin/v1/quest-chains/${paused.quest_chain.id}`, {
      headers: api.adminHeaders,
      body: { status: 'paused' },
    });
    await createChain(
      chainBody(platform.id, advertiser.id, { name: 'future', start: iso(now + HOUR_MS), end: iso(now + DAY_MS) }),
    );
    await createChain(chainBody(platform.id, advertiser.id, { name: 'past', start: iso(now - DAY_MS), end: iso(now - HOUR_MS) }));
    const other = await platformWithUser();
    await createChain(chainBody(other.platform.id, advertiser.id, { name: 'other platform' }));

    const answer = await read(platform, platformUserId);
    expect(answer.json.data.quest_chains.map((entry: { quest_chain: { name: string } }) => entry.quest_chain.name)).toEqual([
      'current',
    ]);
    expect(answer.json.data.quest_chains[0].quest_chain).toMatchObject({ id: current.quest_chain.id, status: 'active' });

    // Un-pausing shows it at once on this replica (the admin route invalidates the cache).
    await api.call('PATCH', `/admin/v1/quest-chains/${paused.quest_chain.id}`, {
      headers: api.adminHeaders,
      body: { status: 'active' },
    });
    const again = await read(platform, platformUserId);
    expect(again.json.data.quest_chains.map((entry: { quest_chain: { name: string } }) => entry.quest_chain.name).sort()).toEqual(
      ['current', 'paused'],
    );
  });
});

describe('GET /v1/quest-chains/active/{platformUserId}: progress and rewards', () => {
  it('derives statuses, progress, joined_at, claimable tasks and the chain reward from stored completions', async () => {
    const { platform, userId, platformUserId } = await platformWithUser();
    const now = Date.now();
    const registeredAt = new Date(now - 2 * DAY_MS);
    await database.db
      .update(users)
      .set({ createdAt: dateToMicros(registeredAt) })
      .where(eq(users.id, serviceUserId(userId)));
    const ordered = await createChain(chainBody(platform.id, advertiser.id, { name: 'ordered', start: iso(now - 3 * DAY_MS) }));
    const anyOrder = await createChain(
      chainBody(platform.id, advertiser.id, { name: 'any', start: iso(now - DAY_MS), anyOrder: true, reward: false }),
    );
    const complete = (chain: typeof ordered, index: number, at: string) =>
      storeCompletion(database.db, {
        userId,
        providerId: platform.id,
        platformUserId,
        taskId: chain.tasks[index]!.id,
        chainId: chain.quest_chain.id,
        at,
      });
    await complete(ordered, 0, '2026-01-01T10:00:00.123456Z');
    await complete(anyOrder, 1, '2026-01-01T11:00:00Z');

    const first = (await read(platform, platformUserId)).json.data;
    const [orderedEntry, anyEntry] = first.quest_chains;
    expect(orderedEntry.quest_chain.name).toBe('ordered');
    expect(orderedEntry.tasks.map((t: { user_status: string }) => t.user_status)).toEqual(['completed', 'available', 'locked']);
    expect(orderedEntry.user_progress).toEqual({
      status: 'in_progress',
      progress: 33,
      joined_at: registeredAt.toISOString(),
      completed_at: null,
      completed_tasks: 1,
      total_tasks: 3,
      cap_reached: false,
      period_start: null,
      period_end: null,
    });
    expect(orderedEntry.chain_reward).toMatchObject({
      type: 'mystery_box',
      name: 'Mystery box',
      value: 50,
      image_urls: null,
      claimable: false,
    });
    expect(anyEntry.tasks.map((t: { user_status: string }) => t.user_status)).toEqual(['available', 'completed', 'available']);
    expect(anyEntry.user_progress).toMatchObject({ progress: 33, joined_at: iso(now - DAY_MS) });
    expect(anyEntry.chain_reward).toBeNull();
    expect(first.claimable_tasks).toEqual([
      {
        task_id: ordered.tasks[0]!.id,
        quest_chain_id: ordered.quest_chain.id,
        sequence_number: 1,
        reward_type: 'points',
        reward_name: '10 points',
        reward_value: 10,
        reward_image_urls: null,
        completed_at: '2026-01-01T10:00:00.123Z',
        claimable_at: '2026-01-01T10:00:00.123Z',
        period_start: null,
        period_end: null,
      },
      expect.objectContaining({ task_id: anyOrder.tasks[1]!.id, sequence_number: 2, completed_at: '2026-01-01T11:00:00.000Z' }),
    ]);

    await complete(ordered, 1, '2026-01-01T12:00:00Z');
    await complete(ordered, 2, '2026-01-02T09:30:00Z');
    await storeClaim(database.db, { userId, chainId: ordered.quest_chain.id, taskId: ordered.tasks[0]!.id });
    await database.db
      .update(users)
      .set({ progressChangedAt: parseUtcTimestamp('2026-01-02T03:04:05.678Z')! })
      .where(eq(users.id, serviceUserId(userId)));
    const done = (await read(platform, platformUserId)).json.data;
    expect(done.liveUpdates.baselineTimestamp).toBe('2026-01-02T03:04:05.678Z');
    expect(done.quest_chains[0].user_progress).toMatchObject({
      status: 'completed',
      progress: 100,
      completed_at: '2026-01-02T09:30:00.000Z',
      completed_tasks: 3,
    });
    expect(done.quest_chains[0].tasks.every((t: { user_status: string }) => t.user_status === 'completed')).toBe(true);
    expect(done.quest_chains[0].chain_reward.claimable).toBe(true);
    // The claimed task reward is gone from claimable_tasks; the others remain.
    expect(done.claimable_tasks.map((t: { task_id: string }) => t.task_id)).toEqual([
      ordered.tasks[1]!.id,
      ordered.tasks[2]!.id,
      anyOrder.tasks[1]!.id,
    ]);

    await storeClaim(database.db, { userId, chainId: ordered.quest_chain.id, taskId: null });
    const claimed = (await read(platform, platformUserId)).json.data;
    expect(claimed.quest_chains[0].chain_reward.claimable).toBe(false);
    // Completed chains stay listed, so their rewards can still be seen.
    expect(claimed.quest_chains[0].user_progress.status).toBe('completed');
  });
});

describe('GET /v1/quest-chains/active/{platformUserId}: published shape', () => {
  type JsonSchema = Record<string, unknown>;

  /** The 200 schema of the operation from /openapi.json, with component $refs inlined. */
  async function publishedSchema() {
    const document = (await api.call('GET', '/openapi.json')).json;
    const components = document.components.schemas as Record<string, JsonSchema>;
    const inline = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(inline);
      if (node === null || typeof node !== 'object') return node;
      const ref = (node as { $ref?: string }).$ref;
      if (ref) return inline(components[ref.replace('#/components/schemas/', '')]);
      return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value)]));
    };
    const schema =
      document.paths['/v1/quest-chains/active/{platformUserId}'].get.responses['200'].content['application/json'].schema;
    return z.fromJSONSchema(inline(schema) as JsonSchema);
  }

  it('validates unknown-user and full answers against the OpenAPI response schema', async () => {
    const schema = await publishedSchema();
    const { platform, userId, platformUserId } = await platformWithUser();
    const chain = await createChain(chainBody(platform.id, advertiser.id));
    await createChain(chainBody(platform.id, advertiser.id, { reward: false }));
    await storeCompletion(database.db, {
      userId,
      providerId: platform.id,
      platformUserId,
      taskId: chain.tasks[0]!.id,
      chainId: chain.quest_chain.id,
      at: iso(Date.now() - HOUR_MS),
    });

    const full = (await read(platform, platformUserId)).json;
    expect(full.data.quest_chains).toHaveLength(2);
    expect(full.data.claimable_tasks).toHaveLength(1);
    expect(schema.safeParse(full).error).toBeUndefined();
    expect(schema.safeParse((await read(platform, 'nobody')).json).error).toBeUndefined();

    // The check has teeth: a missing published field or a wrong type fails it.
    const { claimable: _claimable, ...rewardWithoutClaimable } = full.data.quest_chains[0].chain_reward;
    const broken = structuredClone(full);
    broken.data.quest_chains[0].chain_reward = rewardWithoutClaimable;
    expect(schema.safeParse(broken).success).toBe(false);
    const wrongType = structuredClone(full);
    wrongType.data.quest_chains[0].user_progress.progress = '33';
    expect(schema.safeParse(wrongType).success).toBe(false);
  });
});
