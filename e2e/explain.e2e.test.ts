import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainBody, DAY_MS, iso } from '../api/testing/chains.js';
import { adminHeaders } from '../shared/testing/admin-token.js';
import { eventually } from '../shared/testing/eventually.js';
import { nothingPending } from '../shared/testing/progress.js';
import { type Stack, startStack } from './harness/stack.js';

// §11 over HTTP against the built API and a real worker: events are sent
// over the API and matched by the worker, and one table reaches every
// verdict. Explain must agree with what GET active shows for the same user.

const now = Date.now();
const day = (offset: number) => iso(now + offset * DAY_MS);

let stack: Stack;
let platform: { id: string; headers: Record<string, string> };
let advertiser: { id: string; headers: Record<string, string> };
let ordered: { id: string; taskIds: string[] };
let anyOrder: { id: string; taskIds: string[] };

const explain = (chainId: string, userId: string, headers = platform.headers) =>
  stack.call('GET', `/v1/quest-chains/${chainId}/users/${encodeURIComponent(userId)}/explain`, { headers });

async function createChain(spec: Parameters<typeof chainBody>[2]) {
  const answer = await stack.call('POST', '/admin/v1/quest-chains', {
    headers: adminHeaders,
    body: chainBody(platform.id, advertiser.id, spec),
  });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return {
    id: answer.json.data.quest_chain.id as string,
    taskIds: answer.json.data.tasks.map((t: { id: string }) => t.id) as string[],
  };
}

async function send(
  sender: { headers: Record<string, string> },
  userId: string,
  event: { event_type: string; timestamp: string; amount?: number; currency?: string },
) {
  const answer = await stack.call('POST', '/v1/events', { headers: sender.headers, body: { user_id: userId, ...event } });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return answer.json.data.event_id as string;
}

/** Event ids by name, so the table can say which event gets which verdict. */
const ids: Record<string, string> = {};

beforeAll(async () => {
  stack = await startStack('explain', { workerCount: 1 });
  platform = await stack.createProvider('platform');
  advertiser = await stack.createProvider('advertiser');
  ordered = await createChain({
    start: day(-10),
    end: day(10),
    tasks: [
      { event: 'kyc' },
      { event: 'deposit', min_amount: 50, currency: 'EUR', after: day(-8), before: day(-2) },
      { event: 'trade' },
    ],
  });
  anyOrder = await createChain({
    start: day(-10),
    end: day(10),
    anyOrder: true,
    tasks: [{ event: 'trade' }, { event: 'trade', min_amount: 100 }],
  });

  expect(
    (await stack.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: 'ann' } })).status,
  ).toBe(200);
  const started = await stack.call('POST', '/v1/account-links', {
    headers: platform.headers,
    body: { platform_user_id: 'ann', advertiser_id: advertiser.id },
  });
  const completed = await stack.call('POST', '/v1/account-links/complete', {
    headers: advertiser.headers,
    body: { connection_token: started.json.data.connection_token, advertiser_user_id: 'adv-ann' },
  });
  expect(completed.status, JSON.stringify(completed.json)).toBe(200);

  ids.outside = await send(platform, 'ann', { event_type: 'deposit', timestamp: day(-11), amount: 100, currency: 'EUR' });
  ids.early = await send(platform, 'ann', { event_type: 'deposit', timestamp: day(-9), amount: 100, currency: 'EUR' });
  ids.small = await send(platform, 'ann', { event_type: 'deposit', timestamp: day(-7), amount: 10, currency: 'EUR' });
  ids.noAmount = await send(platform, 'ann', { event_type: 'deposit', timestamp: day(-6.9), currency: 'EUR' });
  ids.dollars = await send(platform, 'ann', { event_type: 'deposit', timestamp: day(-6.8), amount: 100, currency: 'USD' });
  ids.tooSoon = await send(platform, 'ann', { event_type: 'deposit', timestamp: day(-6.7), amount: 100, currency: 'EUR' });
  ids.kyc = await send(platform, 'ann', { event_type: 'kyc', timestamp: day(-6) });
  ids.deposit = await send(advertiser, 'adv-ann', { event_type: 'deposit', timestamp: day(-5), amount: 60, currency: 'eur' });
  ids.again = await send(platform, 'ann', { event_type: 'deposit', timestamp: day(-4), amount: 100, currency: 'EUR' });
  ids.late = await send(platform, 'ann', { event_type: 'deposit', timestamp: day(-1), amount: 100, currency: 'EUR' });
  // Any-order chain: the first trade completes task 1 (the lowest it matches), so task 2 sees it used.
  ids.trade1 = await send(platform, 'ann', { event_type: 'trade', timestamp: day(-3), amount: 500 });
  ids.trade2 = await send(advertiser, 'adv-ann', { event_type: 'trade', timestamp: day(-2.5), amount: 500 });
  await eventually(() => nothingPending(stack.database.db), { what: 'the worker to match every event', timeoutMs: 30_000 });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('GET /v1/quest-chains/{id}/users/{platformUserId}/explain', () => {
  it('names the completing event and a verdict for every other event of the task type (ordered chain)', async () => {
    const answer = await explain(ordered.id, 'ann');
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    const data = answer.json.data;
    expect(data).toMatchObject({ quest_chain_id: ordered.id, user: { exists: true }, pending_events: 0 });
    const [kyc, deposit, trade] = data.tasks;
    expect(kyc).toMatchObject({
      task_id: ordered.taskIds[0],
      sequence_number: 1,
      user_status: 'completed',
      completed_by: { event_id: ids.kyc, event_type: 'kyc', timestamp: day(-6), source: 'platform' },
      candidates: [],
    });
    expect(deposit).toMatchObject({ user_status: 'completed', completed_by: { event_id: ids.deposit, source: 'advertiser' } });
    // Latest first; the completing event is not a candidate.
    expect(deposit.candidates.map((c: { event_id: string; verdict: string }) => [c.event_id, c.verdict])).toEqual([
      [ids.late, 'after_task_window'],
      [ids.again, 'after_completion'],
      [ids.tooSoon, 'waiting_for_earlier_task'],
      [ids.dollars, 'currency_mismatch'],
      [ids.noAmount, 'amount_missing'],
      [ids.small, 'amount_below_minimum'],
      [ids.early, 'before_task_window'],
      [ids.outside, 'outside_chain_window'],
    ]);
    expect(deposit.candidates[5]).toEqual({
      event_id: ids.small,
      timestamp: day(-7),
      source: 'platform',
      amount: 10,
      currency: 'EUR',
      verdict: 'amount_below_minimum',
      progress: null,
    });
    // Task 3 was current from -5 days: the first trade completed it, the second came after.
    expect(trade).toMatchObject({ user_status: 'completed', completed_by: { event_id: ids.trade1 } });
    expect(trade.candidates.map((c: { event_id: string; verdict: string }) => [c.event_id, c.verdict])).toEqual([
      [ids.trade2, 'after_completion'],
    ]);
  });

  it('agrees with GET active for the same user', async () => {
    const active = await stack.call('GET', '/v1/quest-chains/active/ann', { headers: platform.headers });
    for (const chain of [ordered, anyOrder]) {
      const shown = active.json.data.quest_chains.find((c: { quest_chain: { id: string } }) => c.quest_chain.id === chain.id);
      const explained = (await explain(chain.id, 'ann')).json.data;
      expect(explained.tasks.map((t: { user_status: string }) => t.user_status)).toEqual(
        shown.tasks.map((t: { user_status: string }) => t.user_status),
      );
    }
  });

  it('says used_by_other_task for an event that completed another task (any-order chain)', async () => {
    const data = (await explain(anyOrder.id, 'ann')).json.data;
    expect(data.tasks[0]).toMatchObject({ user_status: 'completed', completed_by: { event_id: ids.trade1, source: 'platform' } });
    expect(data.tasks[1]).toMatchObject({
      user_status: 'completed',
      completed_by: { event_id: ids.trade2, source: 'advertiser' },
    });
    expect(data.tasks[1].candidates.map((c: { event_id: string; verdict: string }) => [c.event_id, c.verdict])).toEqual([
      [ids.trade1, 'used_by_other_task'],
    ]);
    expect(data.tasks[0].candidates.map((c: { event_id: string; verdict: string }) => [c.event_id, c.verdict])).toEqual([
      [ids.trade2, 'used_by_other_task'],
    ]);
  });

  it('answers 200 with user.exists false and no tasks for a user the platform has not registered', async () => {
    const answer = await explain(ordered.id, 'nobody');
    expect(answer.status).toBe(200);
    expect(answer.json.data).toEqual({
      quest_chain_id: ordered.id,
      user: { exists: false },
      cap_reached: false,
      pending_events: 0,
      period_start: null,
      period_end: null,
      tasks: [],
    });
  });

  it("answers 404 for another platform's chain and for no chain, 400 naming the field for a malformed id", async () => {
    const other = await stack.createProvider('platform');
    for (const answer of [
      await explain(ordered.id, 'ann', other.headers),
      await explain('00000000-0000-4000-8000-000000000000', 'ann'),
    ]) {
      expect(answer.status).toBe(404);
      expect(answer.json).toMatchObject({ success: false, code: 'not_found', param: 'questChainId' });
    }
    const malformed = await explain('not-a-uuid', 'ann');
    expect(malformed.status).toBe(400);
    expect(malformed.json).toMatchObject({ success: false, param: 'questChainId' });
    const advertiserCall = await explain(ordered.id, 'ann', advertiser.headers);
    expect(advertiserCall.status).toBe(403);
  });

  it('says not_yet_processed for an event the matcher has not reached (worker stopped), and counts it pending', async () => {
    await Promise.all(stack.workers.splice(0).map((worker) => worker.stop('SIGTERM')));
    const waiting = await send(platform, 'ann', { event_type: 'kyc', timestamp: day(-0.5) });
    const data = (await explain(ordered.id, 'ann')).json.data;
    expect(data.pending_events).toBe(1);
    expect(data.tasks[0].candidates).toEqual([expect.objectContaining({ event_id: waiting, verdict: 'not_yet_processed' })]);
  });
});
