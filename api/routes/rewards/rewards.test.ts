import { randomUUID } from 'node:crypto';
import { count as countRows, eq, inArray } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { chainProgress, questChains, rewardClaims } from '../../../shared/db/schema/index.js';
import { type ServiceUserId, serviceUserId } from '../../../shared/domain/ids.js';
import { parseUtcTimestamp } from '../../../shared/domain/timestamp.js';
import { createTestChain, type TestChain } from '../../../shared/testing/chains.js';
import { createTestProvider, type TestProvider } from '../../../shared/testing/fixtures.js';
import { storeCompletion } from '../../../shared/testing/progress.js';
import { useTestService } from '../../testing/test-service.js';

const { database, api, platform, advertiser } = useTestService('rewards');
let otherPlatform: TestProvider;

/** A chain written through the data layer (this file tests claims, not chain creation). */
const createChain = (owner: TestProvider, options: { tasks: number; reward: boolean }): Promise<TestChain> =>
  createTestChain(database.db, owner.id, advertiser.id, {
    name: 'chain',
    start: '2020-01-01T00:00:00Z',
    end: '2099-01-01T00:00:00Z',
    tasks: Array.from({ length: options.tasks }, (_, index) => ({
      event: `step-${index + 1}`,
      ...(index === 0 ? { image_urls: ['https://example.com/p.png'] } : {}),
    })),
    reward: options.reward && { type: 'mystery_box', name: 'Gold box', value: null, image_urls: null },
  });

async function register(owner: TestProvider, platformUserId: string): Promise<ServiceUserId> {
  const answer = await api.call('POST', '/v1/users/register', {
    headers: owner.headers,
    body: { platform_user_id: platformUserId },
  });
  return answer.json.data.user_id as ServiceUserId;
}

/** What the worker writes when an event completes a task: the completion and the chain's summary. */
const complete = (userId: ServiceUserId, chainId: string, taskId: string, at: string) =>
  storeCompletion(database.db, { userId, providerId: platform.id, platformUserId: randomUUID(), taskId, chainId, at });

const claim = (body: Record<string, unknown>, caller: TestProvider = platform) =>
  api.call('POST', '/v1/rewards/claim', { headers: caller.headers, body });

beforeAll(async () => {
  otherPlatform = await createTestProvider(database.db, 'platform');
});

describe('POST /v1/rewards/claim: task rewards', () => {
  it('refuses an incomplete task (409), then grants a completed one once', async () => {
    const chain = await createChain(platform, { tasks: 2, reward: false });
    const userId = await register(platform, 'task-1');
    const early = await claim({ platform_user_id: 'task-1', task_id: chain.taskIds[0] });
    expect(early.status).toBe(409);
    expect(early.json).toMatchObject({ success: false, code: 'reward_not_claimable', param: 'task_id' });

    await complete(userId, chain.id, chain.taskIds[0]!, '2026-01-02T03:04:05.678901Z');
    const first = await claim({ platform_user_id: 'task-1', task_id: chain.taskIds[0] });
    expect(first.status).toBe(200);
    expect(first.json.data).toMatchObject({
      kind: 'task',
      task_id: chain.taskIds[0],
      quest_chain_id: chain.id,
      reward: { type: 'points', name: '10 points', value: 10, image_urls: ['https://example.com/p.png'] },
      already_claimed: false,
    });
    expect(first.json.data.claimed_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const second = await claim({ platform_user_id: 'task-1', task_id: chain.taskIds[0] });
    expect(second.status).toBe(200);
    expect(second.json.data).toEqual({ ...first.json.data, already_claimed: true });
  });

  it('grants one claim to 10 concurrent claims of one reward', async () => {
    const chain = await createChain(platform, { tasks: 1, reward: false });
    const userId = await register(platform, 'race-1');
    await complete(userId, chain.id, chain.taskIds[0]!, '2026-01-02T00:00:00Z');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => claim({ platform_user_id: 'race-1', task_id: chain.taskIds[0] })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.json.data.claim_id)).size).toBe(1);
    expect(answers.filter((a) => a.json.data.already_claimed)).toHaveLength(9);
    const [count] = await database.db
      .select({ n: countRows() })
      .from(rewardClaims)
      .where(eq(rewardClaims.userId, serviceUserId(userId)));
    expect(count?.n).toBe(1);
  });
});

describe('POST /v1/rewards/claim: chain rewards', () => {
  it('is claimable only once every task is completed, and at most once under concurrency', async () => {
    const chain = await createChain(platform, { tasks: 2, reward: true });
    const userId = await register(platform, 'chain-1');
    await complete(userId, chain.id, chain.taskIds[0]!, '2026-01-02T00:00:00Z');
    const early = await claim({ platform_user_id: 'chain-1', quest_chain_id: chain.id });
    expect(early.status).toBe(409);
    expect(early.json.error).toContain('not completed');

    await complete(userId, chain.id, chain.taskIds[1]!, '2026-01-03T00:00:00Z');
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => claim({ platform_user_id: 'chain-1', quest_chain_id: chain.id })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(5).fill(200));
    expect(new Set(answers.map((a) => a.json.data.claim_id)).size).toBe(1);
    expect(answers.filter((a) => !a.json.data.already_claimed)).toHaveLength(1);
    expect(answers[0]!.json.data).toMatchObject({
      kind: 'chain',
      task_id: null,
      quest_chain_id: chain.id,
      reward: { id: chain.rewardId, type: 'mystery_box', name: 'Gold box', value: null, image_urls: null },
    });
  });

  it("trusts the matcher's chain_progress.completed_at as completion", async () => {
    const chain = await createChain(platform, { tasks: 1, reward: true });
    const userId = await register(platform, 'chain-summary');
    await database.db.insert(chainProgress).values({
      userId,
      chainId: chain.id,
      completedTasks: 1,
      totalTasks: 1,
      completedAt: parseUtcTimestamp('2026-01-02T00:00:00Z')!,
    });
    expect((await claim({ platform_user_id: 'chain-summary', quest_chain_id: chain.id })).status).toBe(200);
  });

  it('refuses a completed chain without a chain reward (409)', async () => {
    const chain = await createChain(platform, { tasks: 1, reward: false });
    const userId = await register(platform, 'chain-none');
    await complete(userId, chain.id, chain.taskIds[0]!, '2026-01-02T00:00:00Z');
    const answer = await claim({ platform_user_id: 'chain-none', quest_chain_id: chain.id });
    expect(answer.status).toBe(409);
    expect(answer.json.error).toContain('no chain reward');
  });

  it('keeps rewards of paused and ended chains claimable (earned is earned)', async () => {
    const chain = await createChain(platform, { tasks: 1, reward: true });
    const userId = await register(platform, 'ended-1');
    await complete(userId, chain.id, chain.taskIds[0]!, '2026-01-02T00:00:00Z');
    await database.db.update(questChains).set({ status: 'ended' }).where(eq(questChains.id, chain.id));
    const listed = await api.call('GET', '/v1/rewards/ended-1', { headers: platform.headers });
    expect(listed.json.data.claimable.map((entry: { kind: string }) => entry.kind)).toEqual(['task', 'chain']);
    expect((await claim({ platform_user_id: 'ended-1', quest_chain_id: chain.id })).status).toBe(200);
    await database.db.update(questChains).set({ status: 'paused' }).where(eq(questChains.id, chain.id));
    expect((await claim({ platform_user_id: 'ended-1', task_id: chain.taskIds[0] })).status).toBe(200);
  });
});

describe('POST /v1/rewards/claim: 400 and 403', () => {
  it('answers 400 for unknown or foreign users, tasks and chains, and for both or neither id', async () => {
    const mine = await createChain(platform, { tasks: 1, reward: true });
    const foreign = await createChain(otherPlatform, { tasks: 1, reward: true });
    const userId = await register(platform, 'bad-1');
    await complete(userId, mine.id, mine.taskIds[0]!, '2026-01-02T00:00:00Z');
    const foreignUserId = await register(otherPlatform, 'foreign-1');
    await complete(foreignUserId, foreign.id, foreign.taskIds[0]!, '2026-01-02T00:00:00Z');
    const cases: [Record<string, unknown>, string][] = [
      [{ platform_user_id: 'nobody', task_id: mine.taskIds[0] }, 'platform_user_id'],
      [{ platform_user_id: 'foreign-1', task_id: foreign.taskIds[0] }, 'platform_user_id'],
      [{ platform_user_id: 'bad-1', task_id: randomUUID() }, 'task_id'],
      [{ platform_user_id: 'bad-1', task_id: foreign.taskIds[0] }, 'task_id'],
      [{ platform_user_id: 'bad-1', quest_chain_id: randomUUID() }, 'quest_chain_id'],
      [{ platform_user_id: 'bad-1', quest_chain_id: foreign.id }, 'quest_chain_id'],
      [{ platform_user_id: 'bad-1', task_id: mine.taskIds[0], quest_chain_id: mine.id }, 'exactly one'],
      [{ platform_user_id: 'bad-1' }, 'exactly one'],
      [{ platform_user_id: 'bad-1', task_id: 'not-a-uuid' }, 'task_id'],
      [{ task_id: mine.taskIds[0] }, 'platform_user_id'],
    ];
    for (const [body, hint] of cases) {
      const answer = await claim(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json.error).toContain(hint);
    }
    const [count] = await database.db
      .select({ n: countRows() })
      .from(rewardClaims)
      .where(inArray(rewardClaims.userId, [userId, foreignUserId]));
    expect(count?.n).toBe(0);
  });

  it('answers 403 to advertisers and to credentials without the permission', async () => {
    const noClaim = await createTestProvider(database.db, 'platform', { permissions: ['rewards:read'] });
    const noRead = await createTestProvider(database.db, 'platform', { permissions: ['rewards:claim'] });
    const body = { platform_user_id: 'x', task_id: randomUUID() };
    expect((await claim(body, advertiser)).status).toBe(403);
    const missing = await claim(body, noClaim);
    expect(missing.status).toBe(403);
    expect(missing.json.error).toContain('rewards:claim');
    expect((await api.call('GET', '/v1/rewards/x', { headers: noRead.headers })).status).toBe(403);
    expect((await api.call('GET', '/v1/rewards/x', { headers: advertiser.headers })).status).toBe(403);
    expect((await api.call('GET', '/v1/rewards/x')).status).toBe(401);
  });
});

describe('GET /v1/rewards/{platformUserId}', () => {
  it('lists claimable rewards, then moves them to claimed', async () => {
    const chain = await createChain(platform, { tasks: 2, reward: true });
    const userId = await register(platform, 'list-1');
    await complete(userId, chain.id, chain.taskIds[1]!, '2026-01-03T00:00:00.5Z');
    await complete(userId, chain.id, chain.taskIds[0]!, '2026-01-02T00:00:00Z');

    const before = await api.call('GET', '/v1/rewards/list-1', { headers: platform.headers });
    expect(before.status).toBe(200);
    expect(before.json.data).toEqual({
      claimable: [
        {
          kind: 'task',
          task_id: chain.taskIds[0],
          quest_chain_id: chain.id,
          sequence_number: 1,
          reward_type: 'points',
          reward_name: '10 points',
          reward_value: 10,
          reward_image_urls: ['https://example.com/p.png'],
          completed_at: '2026-01-02T00:00:00.000Z',
          claimable_at: '2026-01-02T00:00:00.000Z',
          period_start: null,
          period_end: null,
        },
        {
          kind: 'task',
          task_id: chain.taskIds[1],
          quest_chain_id: chain.id,
          sequence_number: 2,
          reward_type: 'points',
          reward_name: '20 points',
          reward_value: 20,
          reward_image_urls: null,
          completed_at: '2026-01-03T00:00:00.500Z',
          claimable_at: '2026-01-03T00:00:00.500Z',
          period_start: null,
          period_end: null,
        },
        {
          kind: 'chain',
          quest_chain_id: chain.id,
          reward: { id: chain.rewardId, type: 'mystery_box', name: 'Gold box', value: null, image_urls: null },
          claimable_at: '2026-01-03T00:00:00.500Z',
          period_start: null,
          period_end: null,
        },
      ],
      claimed: [],
      has_more: false,
    });

    const taskClaim = await claim({ platform_user_id: 'list-1', task_id: chain.taskIds[1] });
    const chainClaim = await claim({ platform_user_id: 'list-1', quest_chain_id: chain.id });
    const after = await api.call('GET', '/v1/rewards/list-1', { headers: platform.headers });
    expect(after.json.data.claimable.map((entry: { task_id?: string }) => entry.task_id)).toEqual([chain.taskIds[0]]);
    const { already_claimed: _a, ...taskClaimed } = taskClaim.json.data;
    const { already_claimed: _b, ...chainClaimed } = chainClaim.json.data;
    expect(after.json.data.claimed).toEqual([taskClaimed, chainClaimed]);
  });

  it("shows claimable_at as the completion plus the chain's reward hold, and accepts the claim once it has passed", async () => {
    const chain = await createTestChain(database.db, platform.id, advertiser.id, {
      start: '2020-01-01T00:00:00Z',
      end: '2099-01-01T00:00:00Z',
      holdSeconds: 7200,
      tasks: [{ event: 'held-step' }],
      reward: { type: 'mystery_box', name: 'Held box', value: 1, image_urls: null },
    });
    const userId = await register(platform, 'held-1');
    await complete(userId, chain.id, chain.taskIds[0]!, '2026-01-02T00:00:00Z');
    const listed = await api.call('GET', '/v1/rewards/held-1', { headers: platform.headers });
    expect(
      listed.json.data.claimable.map((entry: { kind: string; claimable_at: string }) => [entry.kind, entry.claimable_at]),
    ).toEqual([
      ['task', '2026-01-02T02:00:00.000Z'],
      ['chain', '2026-01-02T02:00:00.000Z'],
    ]);
    const claimed = await claim({ platform_user_id: 'held-1', task_id: chain.taskIds[0] });
    expect(claimed.status, claimed.text).toBe(200);
    expect(claimed.json.data).toMatchObject({ already_claimed: false, reversed: false, reversed_at: null });
  });

  it('shows nothing for unknown users or users of another platform', async () => {
    const foreign = await createChain(otherPlatform, { tasks: 1, reward: true });
    const foreignUserId = await register(otherPlatform, 'hidden-1');
    await complete(foreignUserId, foreign.id, foreign.taskIds[0]!, '2026-01-02T00:00:00Z');
    for (const id of ['hidden-1', 'never-registered']) {
      const answer = await api.call('GET', `/v1/rewards/${id}`, { headers: platform.headers });
      expect(answer.status).toBe(200);
      expect(answer.json.data).toEqual({ claimable: [], claimed: [], has_more: false });
    }
    const owner = await api.call('GET', '/v1/rewards/hidden-1', { headers: otherPlatform.headers });
    expect(owner.json.data.claimable).toHaveLength(2);
  });
});
