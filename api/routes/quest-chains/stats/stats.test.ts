import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCredential } from '../../../../core/admin/credentials.js';
import type { ServiceUserId } from '../../../../shared/domain/ids.js';
import {
  countStatsOverRows,
  statsAnswerOf,
  statsColumnsAdrift,
  statsDifferences,
} from '../../../../shared/testing/chain-stats-rows.js';
import { createTestChain, createTestUser, DAY_MS, iso, type TestChain } from '../../../../shared/testing/chains.js';
import { createTestProvider, type TestProvider } from '../../../../shared/testing/fixtures.js';
import { storeCompletion } from '../../../../shared/testing/progress.js';
import { chainBody } from '../../../testing/chains.js';
import { useTestService } from '../../../testing/test-service.js';

const { database, api, platform, advertiser } = useTestService('chain_stats');

const USERS = 12;
const COMPLETING = 8;
const BUDGET = 1000;
let chain: TestChain;
let chainStartMs: number;
const users: { id: ServiceUserId; platformUserId: string }[] = [];

interface Stats {
  users: { admitted: number; started: number; completed: number };
  tasks: { task_id: string; completed_users: number; median_seconds_to_complete: number | null }[];
  rewards: { task_id: string | null; type: string; claims: number; value_claimed: number }[];
  prizes: { prize_id: string; drawn: number; stock_left: number | null }[];
  budget: { budget: number | null; spent: number; left: number | null };
  reversals: { claims: number; value: number; users: number };
  points_paid_out: number;
  daily: { date: string; starts: number; completions: number; claims: number }[];
}

const adminStats = async (chainId: string) => {
  const answer = await api.call('GET', `/admin/v1/quest-chains/${chainId}/stats`, { headers: api.adminHeaders });
  expect(answer.status, answer.text).toBe(200);
  return answer.json.data as Stats;
};
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

beforeAll(async () => {
  const start = Date.now() - 3 * DAY_MS;
  chainStartMs = start;
  chain = await createTestChain(database.db, platform.id, advertiser.id, {
    start: iso(start),
    tasks: [{ event: 'registration' }, { event: 'kyc' }],
    budget: BUDGET,
    reward: {
      type: 'mystery_box',
      name: 'Box',
      value: 50,
      prizes: [
        { prize_id: 'small', name: 'Small', value: 5, weight: 1, stock: 3 },
        { prize_id: 'big', name: 'Big', value: 100, weight: 1 },
      ],
    },
  });
  for (let i = 0; i < USERS; i += 1) {
    const platformUserId = `stats-user-${i}`;
    const id = await createTestUser(database.db, platform.id, platformUserId);
    users.push({ id, platformUserId });
    // Task 1 on day 1 of the chain, task 2 (the chain) on day 2 for the first COMPLETING users.
    await storeCompletion(database.db, {
      userId: id,
      providerId: platform.id,
      platformUserId,
      taskId: chain.taskIds[0]!,
      chainId: chain.id,
      at: iso(start + DAY_MS + i * 60_000),
    });
    if (i < COMPLETING)
      await storeCompletion(database.db, {
        userId: id,
        providerId: platform.id,
        platformUserId,
        taskId: chain.taskIds[1]!,
        chainId: chain.id,
        at: iso(start + 2 * DAY_MS + i * 60_000),
      });
  }
});

describe('GET /admin/v1/quest-chains/{id}/stats', () => {
  it('answers the funnel and the per-task figures of the stored completions', async () => {
    const stats = await adminStats(chain.id);
    expect(stats.users).toEqual({ admitted: USERS, started: USERS, completed: COMPLETING });
    expect(stats.tasks.map((task) => task.completed_users)).toEqual([USERS, COMPLETING]);
    // The users registered after the chain's start, so each joined at registration: the median over (completion - registration).
    const registered = await database.db.execute<{ id: string; ms: number }>(
      sql`select id, extract(epoch from created_at) * 1000 as ms from users`,
    );
    const registeredMs = new Map(registered.map((row) => [row.id, Number(row.ms)]));
    const waits = users
      .map((user, i) => (chainStartMs + DAY_MS + i * 60_000 - registeredMs.get(user.id)!) / 1000)
      .sort((a, b) => a - b);
    expect(stats.tasks[0]!.median_seconds_to_complete).toBeCloseTo((waits[USERS / 2 - 1]! + waits[USERS / 2]!) / 2, 3);
    expect(stats.daily.length).toBeGreaterThanOrEqual(4);
    expect(sum(stats.daily.map((day) => day.starts))).toBe(USERS);
    expect(sum(stats.daily.map((day) => day.completions))).toBe(COMPLETING);
    // Every figure, day by day and task by task, as counted over the rows the slow way.
    expect(statsDifferences(statsAnswerOf(stats), await countStatsOverRows(database.db, chain.id))).toEqual([]);
  });

  it('stays exact under concurrent claims: every answer agrees with itself, the last with a count over the rows', async () => {
    const claims = users.flatMap((user, i) => [
      { platform_user_id: user.platformUserId, task_id: chain.taskIds[0] },
      ...(i < COMPLETING
        ? [
            { platform_user_id: user.platformUserId, task_id: chain.taskIds[1] },
            { platform_user_id: user.platformUserId, quest_chain_id: chain.id },
          ]
        : []),
    ]);
    let claiming = true;
    const reads: Stats[] = [];
    const reader = (async () => {
      while (claiming) reads.push(await adminStats(chain.id));
    })();
    const answers = await Promise.all(
      claims.map((body) => api.call('POST', '/v1/rewards/claim', { headers: platform.headers, body })),
    );
    claiming = false;
    await reader;
    for (const answer of answers) expect([200, 409], answer.text).toContain(answer.status);
    reads.push(await adminStats(chain.id));
    expect(reads.length).toBeGreaterThan(1);
    for (const stats of reads) {
      // Claims, draws and the daily series come from three tables: one snapshot makes them agree at every moment.
      const chainClaims = stats.rewards.find((reward) => reward.task_id === null)!.claims;
      expect(sum(stats.prizes.map((prize) => prize.drawn))).toBe(chainClaims);
      expect(sum(stats.daily.map((day) => day.claims))).toBe(sum(stats.rewards.map((reward) => reward.claims)));
      expect(stats.budget.spent).toBeCloseTo(sum(stats.rewards.map((reward) => reward.value_claimed)), 6);
      expect(stats.budget.left).toBeCloseTo(BUDGET - stats.budget.spent, 6);
      // The ledger's credits are read in the same snapshot: the points rewards' claims, to the point (§18).
      const pointsClaimed = sum(stats.rewards.filter((reward) => reward.type === 'points').map((reward) => reward.value_claimed));
      expect(stats.points_paid_out).toBe(pointsClaimed);
    }

    const last = reads.at(-1)!;
    expect(statsDifferences(statsAnswerOf(last), await countStatsOverRows(database.db, chain.id))).toEqual([]);
    expect(await statsColumnsAdrift(database.db)).toEqual([]);
    const counted = await database.db.execute<{ task_id: string | null; claims: number; value: number }>(sql`
      select task_id, count(*)::int as claims, sum(coalesce((reward->'prize'->>'value')::float8, (reward->>'value')::float8))::float8 as value
      from reward_claims where chain_id = ${chain.id} group by task_id`);
    for (const row of counted) {
      const reward = last.rewards.find((entry) => entry.task_id === row.task_id)!;
      expect({ claims: reward.claims, value: reward.value_claimed }).toEqual({ claims: row.claims, value: row.value });
    }
    expect(sum(last.rewards.map((reward) => reward.claims))).toBe(answers.filter((answer) => answer.status === 200).length);
    // The counter the claims move agrees with the rows (the budget is set, so every claim moved it).
    const [{ spent }] = (await database.db.execute<{ spent: number }>(
      sql`select budget_spent as spent from quest_chains where id = ${chain.id}`,
    )) as unknown as [{ spent: number }];
    expect(last.budget.spent).toBeCloseTo(Number(spent), 6);
    const stock = await database.db.execute<{ prize_id: string; stock: number | null }>(
      sql`select prize_id, stock from reward_prizes where chain_id = ${chain.id}`,
    );
    for (const row of stock) expect(last.prizes.find((prize) => prize.prize_id === row.prize_id)!.stock_left).toBe(row.stock);
  });

  it('answers 404 for an unknown chain and 401 without the admin token', async () => {
    expect((await api.call('GET', `/admin/v1/quest-chains/${platform.id}/stats`, { headers: api.adminHeaders })).status).toBe(
      404,
    );
    expect((await api.call('GET', `/admin/v1/quest-chains/${chain.id}/stats`)).status).toBe(401);
  });
});

describe("GET /v1/quest-chains/{id}/stats (the advertiser's own read)", () => {
  let otherAdvertiser: TestProvider;
  beforeAll(async () => {
    otherAdvertiser = await createTestProvider(database.db, 'advertiser');
  });

  it('answers the advertiser who funds the chain what the operator sees', async () => {
    const answer = await api.call('GET', `/v1/quest-chains/${chain.id}/stats`, { headers: advertiser.headers });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.livemode).toBe(true);
    expect(answer.json.data).toEqual(await adminStats(chain.id));
  });

  it("answers 404 for another advertiser's chain and 403 for a platform", async () => {
    expect((await api.call('GET', `/v1/quest-chains/${chain.id}/stats`, { headers: otherAdvertiser.headers })).status).toBe(404);
    expect((await api.call('GET', `/v1/quest-chains/${chain.id}/stats`, { headers: platform.headers })).status).toBe(403);
  });

  it('keeps test mode apart: a test credential reads its test chains only, a live one its live chains only', async () => {
    const created = await createCredential({ db: database.db }, { providerId: advertiser.id, mode: 'test' });
    const testHeaders = { 'x-api-key': created.key, 'x-api-secret': created.secret };
    const made = await api.call('POST', '/admin/v1/quest-chains', {
      headers: api.adminHeaders,
      body: { ...chainBody(platform.id, advertiser.id), mode: 'test' },
    });
    expect(made.status, made.text).toBe(200);
    const testChainId = made.json.data.quest_chain.id as string;

    expect((await api.call('GET', `/v1/quest-chains/${chain.id}/stats`, { headers: testHeaders })).status).toBe(404);
    const testRead = await api.call('GET', `/v1/quest-chains/${testChainId}/stats`, { headers: testHeaders });
    expect(testRead.status, testRead.text).toBe(200);
    expect(testRead.json).toMatchObject({
      livemode: false,
      data: { quest_chain: { mode: 'test' }, users: { admitted: 0, started: 0, completed: 0 } },
    });
    expect((await api.call('GET', `/v1/quest-chains/${testChainId}/stats`, { headers: advertiser.headers })).status).toBe(404);
  });
});
