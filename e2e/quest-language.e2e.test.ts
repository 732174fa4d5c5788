import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainBody, DAY_MS, iso, questConditions } from '../api/testing/chains.js';
import { readSse } from '../api/testing/sse-reader.js';
import { adminHeaders } from '../shared/testing/admin-token.js';
import { eventually } from '../shared/testing/eventually.js';
import { nothingPending } from '../shared/testing/progress.js';
import { type Stack, startStack } from './harness/stack.js';
import { runBacktest } from './support/backtest.js';

// §16 (docs/quest-language.md) over HTTP against the built API and a real
// worker: a counted, a summed and a streak task in one ordered chain, their
// progress in GET active as events arrive, explain's running counts, a
// reversal taking a counted event back, and the admin API's refusals.

const now = Date.now();
const at = (days: number) => iso(now + days * DAY_MS);

let stack: Stack;
let platform: { id: string; headers: Record<string, string> };
let advertiser: { id: string; headers: Record<string, string> };
let chainId: string;

type TaskAnswer = { id: string; user_status: string; progress: Record<string, number | null> | null };

/** A chain body whose fields the tests set beyond what chainBody knows. */
type WireChain = Record<string, unknown> & { tasks: Record<string, unknown>[] };
const base = (): WireChain =>
  chainBody(platform.id, advertiser.id, {
    start: at(-30),
    end: at(30),
    tasks: [{ event: 'trade' }, { event: 'deposit' }, { event: 'login' }],
  });

async function send(userId: string, event: { event_type: string; timestamp: string; amount?: number; currency?: string }) {
  const answer = await stack.call('POST', '/v1/events', { headers: platform.headers, body: { user_id: userId, ...event } });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return answer.json.data.event_id as string;
}

const matched = () =>
  eventually(() => nothingPending(stack.database.db), { what: 'the worker to match every event', timeoutMs: 30_000 });

async function tasksOf(userId: string): Promise<TaskAnswer[]> {
  const answer = await stack.call('GET', `/v1/quest-chains/active/${userId}`, { headers: platform.headers });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  const chain = answer.json.data.quest_chains.find((c: { quest_chain: { id: string } }) => c.quest_chain.id === chainId);
  return chain.tasks;
}

beforeAll(async () => {
  // Two workers: the result must not depend on which one matches which batch.
  stack = await startStack('quest-language', { workerCount: 2 });
  platform = await stack.createProvider('platform');
  advertiser = await stack.createProvider('advertiser');
  const body = base();
  body.timezone = 'Europe/Berlin';
  body.tasks[0] = { ...body.tasks[0], condition_min_count: 3 };
  body.tasks[1] = { ...body.tasks[1], condition_min_total: 500, condition_currency: 'USD' };
  body.tasks[2] = { ...body.tasks[2], condition_streak: { periods: 3, every: 'day' } };
  const created = await stack.call('POST', '/admin/v1/quest-chains', { headers: adminHeaders, body });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  chainId = created.json.data.quest_chain.id;
  expect(created.json.data.quest_chain.timezone).toBe('Europe/Berlin');
  expect(questConditions(created.json.data.tasks)).toEqual([
    [3, null, null],
    [1, 500, null],
    [1, null, { periods: 3, every: 'day' }],
  ]);
  for (const user of ['kim', 'lee']) {
    expect(
      (await stack.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: user } })).status,
    ).toBe(200);
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('counted, summed and streak tasks over HTTP', () => {
  it("shows each task's count, total and streak as events arrive, and completes each at the event that meets it", async () => {
    await send('kim', { event_type: 'trade', timestamp: at(-10) });
    await send('kim', { event_type: 'trade', timestamp: at(-9) });
    await matched();
    let tasks = await tasksOf('kim');
    expect(tasks[0]).toMatchObject({
      user_status: 'available',
      progress: { count: 2, count_required: 3, total: null, streak: null },
    });
    expect(tasks[1]).toMatchObject({ user_status: 'locked', progress: { count: 0, total: 0, total_required: 500 } });

    await send('kim', { event_type: 'trade', timestamp: at(-8) });
    await send('kim', { event_type: 'deposit', timestamp: at(-7), amount: 200, currency: 'usd' });
    await send('kim', { event_type: 'deposit', timestamp: at(-6.5), amount: 900, currency: 'EUR' });
    await matched();
    tasks = await tasksOf('kim');
    expect(tasks[0]).toMatchObject({ user_status: 'completed', progress: { count: 3, count_required: 3 } });
    expect(tasks[1]).toMatchObject({ user_status: 'available', progress: { count: 1, total: 200, total_required: 500 } });

    await send('kim', { event_type: 'deposit', timestamp: at(-6), amount: 300, currency: 'USD' });
    // Berlin days -5, -2, -1: the gap after -5 broke the streak, so it stands at 2 (yesterday still counts as unbroken).
    await send('kim', { event_type: 'login', timestamp: at(-5) });
    await send('kim', { event_type: 'login', timestamp: at(-2) });
    await send('kim', { event_type: 'login', timestamp: at(-1) });
    await matched();
    tasks = await tasksOf('kim');
    expect(tasks[1]).toMatchObject({ user_status: 'completed', progress: { count: 2, total: 500 } });
    expect(tasks[2]).toMatchObject({ user_status: 'available', progress: { streak: 2, streak_required: 3 } });
    // A late login on day -3 fills the gap: -3, -2, -1 make three, completed at the day -1 login.
    await send('kim', { event_type: 'login', timestamp: at(-3) });
    await matched();
    tasks = await tasksOf('kim');
    expect(tasks[2]).toMatchObject({ user_status: 'completed', progress: { streak: 3 } });
  });

  it('the live stream carries the tallies: live as a count grows, and on a resume since a baseline', async () => {
    expect(
      (await stack.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: 'liv' } })).status,
    ).toBe(200);
    const read = await stack.call('GET', '/v1/quest-chains/active/liv', { headers: platform.headers });
    const { token } = read.json.data.liveUpdates;
    const response = await fetch(`${stack.api.url}/v1/live?${new URLSearchParams({ token, since: 'null' })}`);
    expect(response.status).toBe(200);
    const live = readSse(response.body!);
    await live.nextEvent('ready');
    // liv has no events yet: the catch-up is nothing; the first trade is counted and told.
    await send('liv', { event_type: 'trade', timestamp: at(-12) });
    const told = JSON.parse((await live.nextEvent('progress', 20_000)).data!);
    expect(told.progress).toEqual([
      { quest_chain_id: chainId, task_id: expect.any(String), period_start: null, count: 1, total: 0, streak: 0 },
    ]);
    await live.cancel();
    const resumed = await fetch(`${stack.api.url}/v1/live?${new URLSearchParams({ token, since: 'null' })}`);
    const again = readSse(resumed.body!);
    await again.nextEvent('ready');
    expect(JSON.parse((await again.nextEvent('progress', 20_000)).data!).progress).toMatchObject([
      { quest_chain_id: chainId, count: 1 },
    ]);
    await again.cancel();
  });

  it('explain names each counted event with the running count, and a broken streak', async () => {
    const answer = await stack.call('GET', `/v1/quest-chains/${chainId}/users/kim/explain`, { headers: platform.headers });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    const [trades, deposits, logins] = answer.json.data.tasks as {
      candidates: { verdict: string; progress: { count: number; total: number; streak: number } | null }[];
    }[];
    expect(trades!.candidates.map((c) => [c.verdict, c.progress?.count])).toEqual([
      ['counted', 2],
      ['counted', 1],
    ]);
    expect(deposits!.candidates.map((c) => [c.verdict, c.progress?.total ?? null])).toEqual([
      ['currency_mismatch', null],
      ['counted', 200],
    ]);
    expect(logins!.candidates.map((c) => [c.verdict, c.progress?.streak])).toEqual([
      ['counted', 2],
      ['streak_broken', 1],
      ['counted', 1],
    ]);
  });

  it('a reversal takes a counted event back: the task reopens with its count down', async () => {
    const ids = [];
    for (const day of [-10, -9, -8]) ids.push(await send('lee', { event_type: 'trade', timestamp: at(day) }));
    await matched();
    expect((await tasksOf('lee'))[0]).toMatchObject({ user_status: 'completed', progress: { count: 3 } });
    const reversed = await stack.call('POST', `/v1/events/${ids[1]}/reverse`, { headers: platform.headers, body: {} });
    expect(reversed.status, JSON.stringify(reversed.json)).toBe(200);
    const reopened = await eventually(
      async () => ((await tasksOf('lee'))[0]?.user_status === 'available' ? (await tasksOf('lee'))[0] : undefined),
      {
        what: 'the reversal to reopen the task',
        timeoutMs: 30_000,
      },
    );
    expect(reopened).toMatchObject({ progress: { count: 2, count_required: 3 } });
  });

  it('a backtest of a counted draft projects the completions the walk makes over the stored events', async () => {
    const draft = base();
    draft.tasks = [
      { ...draft.tasks[0], condition_min_count: 3 },
      { ...draft.tasks[1], condition_min_total: 1000, condition_currency: 'USD' },
    ];
    const { result } = await runBacktest(stack, draft);
    // kim and lee each made 3 trades (one of lee's reversed: 2 stand); kim's deposits add up to 500 USD, not 1,000.
    expect(result.tasks).toEqual([
      { sequence_number: 1, users_completed: 1 },
      { sequence_number: 2, users_completed: 0 },
    ]);
  });

  it('refuses inconsistent or unknown fields with a 400 naming them', async () => {
    const refused = async (edit: (body: WireChain) => void, field: string) => {
      const body = base();
      edit(body);
      const answer = await stack.call('POST', '/admin/v1/quest-chains', { headers: adminHeaders, body });
      expect(answer.status, JSON.stringify(answer.json)).toBe(400);
      expect(JSON.stringify(answer.json.error)).toContain(field);
    };
    await refused((b) => (b.tasks[1] = { ...b.tasks[1], condition_min_total: 100 }), 'condition_min_total');
    await refused((b) => (b.tasks[0] = { ...b.tasks[0], condition_min_count: 0 }), 'condition_min_count');
    await refused((b) => (b.tasks[0] = { ...b.tasks[0], condition_min_count: 10_001 }), 'condition_min_count');
    await refused((b) => (b.tasks[2] = { ...b.tasks[2], condition_streak: { periods: 1, every: 'day' } }), 'condition_streak');
    await refused((b) => (b.tasks[2] = { ...b.tasks[2], condition_streak: { periods: 3, every: 'month' } }), 'condition_streak');
    await refused((b) => (b.timezone = 'Mars/Olympus'), 'timezone');
    await refused((b) => (b.recurrence = { every: 'month', timezone: 'Mars/Olympus' }), 'recurrence.timezone');
    await refused((b) => (b.recurrence = { every: 'year' }), 'recurrence.every');
    // A streak longer than a run could never complete.
    await refused(
      (b) => (
        (b.recurrence = { every: 'week' }), (b.tasks[2] = { ...b.tasks[2], condition_streak: { periods: 8, every: 'day' } })
      ),
      'tasks.2.condition_streak',
    );
  });
});
