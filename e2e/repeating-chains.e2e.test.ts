import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainBody, DAY_MS, iso } from '../api/testing/chains.js';
import { adminHeaders } from '../shared/testing/admin-token.js';
import { countStatsOverRows, statsAnswerOf, statsColumnsAdrift, statsDifferences } from '../shared/testing/chain-stats-rows.js';
import { eventually } from '../shared/testing/eventually.js';
import { nothingPending } from '../shared/testing/progress.js';
import { type Stack, startStack } from './harness/stack.js';
import { runBacktest } from './support/backtest.js';

// Repeating chains (docs/quest-language.md) over HTTP against the built API
// and a real worker: a daily chain whose runs each complete on their own,
// earlier runs' rewards claimable by run, claims idempotent per run, and
// explain of one run.

/** UTC midnight `days` from today. */
const midnight = (days: number) => {
  const today = new Date();
  return new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + days)).toISOString();
};
const noonOf = (days: number) => iso(Date.parse(midnight(days)) + DAY_MS / 2);

let stack: Stack;
let platform: { id: string; headers: Record<string, string> };
let daily: { id: string; taskId: string };
let plain: { id: string; taskId: string };
let advertiserId: string;

async function create(body: Record<string, unknown>) {
  const answer = await stack.call('POST', '/admin/v1/quest-chains', { headers: adminHeaders, body });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return {
    id: answer.json.data.quest_chain.id as string,
    taskId: answer.json.data.tasks[0].id as string,
    answer: answer.json.data,
  };
}

const claim = (body: Record<string, unknown>) =>
  stack.call('POST', '/v1/rewards/claim', { headers: platform.headers, body: { platform_user_id: 'ana', ...body } });
const active = async () => {
  const answer = await stack.call('GET', '/v1/quest-chains/active/ana', { headers: platform.headers });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return answer.json.data;
};

beforeAll(async () => {
  stack = await startStack('repeating-chains', { workerCount: 1 });
  platform = await stack.createProvider('platform');
  const advertiser = await stack.createProvider('advertiser');
  advertiserId = advertiser.id;
  const base = chainBody(platform.id, advertiser.id, { start: midnight(-5), end: midnight(5), tasks: [{ event: 'checkin' }] });
  const created = await create({
    ...base,
    recurrence: { every: 'day' },
    chain_reward: { type: 'points', name: 'Daily bonus', value: 5 },
  });
  expect(created.answer.quest_chain.recurrence).toEqual({ every: 'day', timezone: 'UTC' });
  daily = created;
  plain = await create({
    ...chainBody(platform.id, advertiser.id, { start: midnight(-5), end: midnight(5), tasks: [{ event: 'other' }] }),
  });
  expect(
    (await stack.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: 'ana' } })).status,
  ).toBe(200);
  for (const day of [-2, -1]) {
    const sent = await stack.call('POST', '/v1/events', {
      headers: platform.headers,
      body: { user_id: 'ana', event_type: 'checkin', timestamp: noonOf(day) },
    });
    expect(sent.status, JSON.stringify(sent.json)).toBe(200);
  }
  await eventually(() => nothingPending(stack.database.db), { what: 'the worker to match every event', timeoutMs: 30_000 });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('a daily repeating chain over HTTP', () => {
  it('shows the current run, and the rewards of earlier runs each with its period_start', async () => {
    const data = await active();
    const entry = data.quest_chains.find((c: { quest_chain: { id: string } }) => c.quest_chain.id === daily.id);
    expect(entry.user_progress).toMatchObject({
      status: 'not_started',
      period_start: `${midnight(0).replace('Z', '').slice(0, 19)}.000Z`,
      period_end: `${midnight(1).slice(0, 19)}.000Z`,
    });
    expect(entry.tasks[0].user_status).toBe('available');
    const mine = data.claimable_tasks.filter((t: { quest_chain_id: string }) => t.quest_chain_id === daily.id);
    expect(mine.map((t: { period_start: string; completed_at: string }) => [t.period_start, t.completed_at])).toEqual([
      [`${midnight(-2).slice(0, 19)}.000Z`, noonOf(-2)],
      [`${midnight(-1).slice(0, 19)}.000Z`, noonOf(-1)],
    ]);
    expect(entry.chain_reward.claimable).toBe(true);
    expect(entry.chain_reward.claimable_periods.map((p: { period_start: string }) => p.period_start)).toEqual([
      `${midnight(-2).slice(0, 19)}.000Z`,
      `${midnight(-1).slice(0, 19)}.000Z`,
    ]);
  });

  it('the rewards list pages through every run once, each entry named with its period_start', async () => {
    const list = (query: string) => stack.call('GET', `/v1/rewards/ana?${query}`, { headers: platform.headers });
    const whole = await list('limit=200');
    expect(whole.status, JSON.stringify(whole.json)).toBe(200);
    const key = (entry: { kind: string; task_id?: string; quest_chain_id: string; period_start: string | null }) =>
      `${entry.kind === 'task' ? entry.task_id : entry.quest_chain_id}@${entry.period_start}`;
    // Two runs completed and nothing claimed yet: the task and the chain reward of each run.
    expect(whole.json.data.claimable.map(key)).toEqual([
      `${daily.taskId}@${midnight(-2).slice(0, 19)}.000Z`,
      `${daily.taskId}@${midnight(-1).slice(0, 19)}.000Z`,
      `${daily.id}@${midnight(-2).slice(0, 19)}.000Z`,
      `${daily.id}@${midnight(-1).slice(0, 19)}.000Z`,
    ]);
    const walked: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page += 1) {
      const answer = await list(`limit=1${cursor ? `&starting_after=${encodeURIComponent(cursor)}` : ''}`);
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      walked.push(...answer.json.data.claimable.map(key));
      cursor = walked.at(-1);
      if (!answer.json.data.has_more) break;
    }
    expect(walked).toEqual(whole.json.data.claimable.map(key));

    // The id alone names two entries here: refused, naming the fix, rather than resumed after a guess.
    const bare = await list(`limit=1&starting_after=${daily.taskId}`);
    expect(bare.status, JSON.stringify(bare.json)).toBe(400);
    expect(bare.json).toMatchObject({ success: false, code: 'invalid_field', param: 'starting_after' });
    expect(bare.json.error).toContain('period_start');
    const noSuchRun = await list(`limit=1&starting_after=${daily.taskId}@${encodeURIComponent(midnight(-4))}`);
    expect(noSuchRun.status, JSON.stringify(noSuchRun.json)).toBe(400);
  });

  it('claims per run: once each, the current run only once it is completed, and only runs the chain has', async () => {
    const first = await claim({ task_id: daily.taskId, period_start: midnight(-2) });
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    expect(first.json.data).toMatchObject({ already_claimed: false, period_start: `${midnight(-2).slice(0, 19)}.000Z` });
    const again = await claim({ task_id: daily.taskId, period_start: midnight(-2) });
    expect(again.json.data).toMatchObject({ already_claimed: true, claim_id: first.json.data.claim_id });
    const other = await claim({ task_id: daily.taskId, period_start: midnight(-1) });
    expect(other.json.data).toMatchObject({ already_claimed: false });
    expect(other.json.data.claim_id).not.toBe(first.json.data.claim_id);
    // No period_start: the current run, not completed today.
    const today = await claim({ task_id: daily.taskId });
    expect(today.status, JSON.stringify(today.json)).toBe(409);
    expect(today.json).toMatchObject({ success: false, code: 'reward_not_claimable' });
    const chainReward = await claim({ quest_chain_id: daily.id, period_start: midnight(-1) });
    expect(chainReward.json.data).toMatchObject({ kind: 'chain', already_claimed: false });

    const notARun = await claim({ task_id: daily.taskId, period_start: noonOf(-1) });
    expect(notARun.status, JSON.stringify(notARun.json)).toBe(400);
    expect(notARun.json).toMatchObject({ success: false, param: 'period_start' });
    const notRepeating = await claim({ task_id: plain.taskId, period_start: midnight(-1) });
    expect(notRepeating.status, JSON.stringify(notRepeating.json)).toBe(400);
    expect(notRepeating.json).toMatchObject({ success: false, param: 'period_start' });

    const data = await active();
    const entry = data.quest_chains.find((c: { quest_chain: { id: string } }) => c.quest_chain.id === daily.id);
    expect(data.claimable_tasks.filter((t: { quest_chain_id: string }) => t.quest_chain_id === daily.id)).toEqual([]);
    expect(entry.chain_reward.claimable_periods.map((p: { period_start: string }) => p.period_start)).toEqual([
      `${midnight(-2).slice(0, 19)}.000Z`,
    ]);
  });

  it('explains one run: the events of other runs are outside_period', async () => {
    const answer = await stack.call(
      'GET',
      `/v1/quest-chains/${daily.id}/users/ana/explain?period_start=${encodeURIComponent(midnight(-1))}`,
      { headers: platform.headers },
    );
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(answer.json.data).toMatchObject({
      period_start: `${midnight(-1).slice(0, 19)}.000Z`,
      period_end: `${midnight(0).slice(0, 19)}.000Z`,
    });
    const [task] = answer.json.data.tasks;
    expect(task.completed_by.timestamp).toBe(noonOf(-1));
    expect(task.candidates.map((c: { timestamp: string; verdict: string }) => [c.timestamp, c.verdict])).toEqual([
      [noonOf(-2), 'outside_period'],
    ]);
  });

  it('a backtest of the repeating draft counts a completion per run, and the chain reward per completed run', async () => {
    const draft = {
      ...chainBody(platform.id, advertiserId, { start: midnight(-5), end: midnight(5), tasks: [{ event: 'checkin' }] }),
      recurrence: { every: 'day' },
      chain_reward: { type: 'points', name: 'Daily bonus', value: 5 },
    };
    const { result } = await runBacktest(stack, draft);
    // ana checked in on two days so far (two runs), one user.
    expect(result).toMatchObject({
      users_completed: 1,
      tasks: [{ sequence_number: 1, users_completed: 2 }],
      reward_cost: { chain_rewards: 10 },
    });
  });

  it('a new run completes on its own once its event comes', async () => {
    const sent = await stack.call('POST', '/v1/events', {
      headers: platform.headers,
      body: { user_id: 'ana', event_type: 'checkin', timestamp: iso(Date.now() - 1000) },
    });
    expect(sent.status).toBe(200);
    await eventually(() => nothingPending(stack.database.db), { what: 'the worker to match the event', timeoutMs: 30_000 });
    const data = await active();
    const entry = data.quest_chains.find((c: { quest_chain: { id: string } }) => c.quest_chain.id === daily.id);
    expect(entry.user_progress.status).toBe('completed');
    const today = await claim({ task_id: daily.taskId });
    expect(today.status, JSON.stringify(today.json)).toBe(200);
    expect(today.json.data.period_start).toBe(`${midnight(0).slice(0, 19)}.000Z`);
  });

  it('the chain stats count ana once, and each run on its own', async () => {
    const answer = await stack.call('GET', `/admin/v1/quest-chains/${daily.id}/stats`, { headers: adminHeaders });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    const stats = answer.json.data;
    expect(stats.users).toEqual({ admitted: 1, started: 1, completed: 1 });
    expect(stats.tasks[0].completed_users).toBe(1);
    // Every run's completion measured from the run's start (or the later registration), as counted over the rows.
    expect(statsDifferences(statsAnswerOf(stats), await countStatsOverRows(stack.database.db, daily.id))).toEqual([]);
    expect(await statsColumnsAdrift(stack.database.db)).toEqual([]);
    expect(
      stats.periods.map((p: { period_start: string; completions: number; claims: number }) => [
        p.period_start,
        p.completions,
        p.claims,
      ]),
    ).toEqual([
      [`${midnight(-2).slice(0, 19)}.000Z`, 1, 1],
      [`${midnight(-1).slice(0, 19)}.000Z`, 1, 2],
      [`${midnight(0).slice(0, 19)}.000Z`, 1, 1],
    ]);
  });
});
