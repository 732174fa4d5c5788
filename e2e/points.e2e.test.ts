import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from '../shared/testing/admin-token.js';
import { eventually } from '../shared/testing/eventually.js';
import { type Stack, startStack } from './harness/stack.js';

// Points (product rules §18) through the real processes, over HTTP: the
// built API and a worker. A claim credits, spends are idempotent and never
// overdraw under concurrency, test mode keeps its own balances, and
// auto-claim chains have their rewards claimed by the worker, a mystery box
// drawn and a budget kept.

type Provider = { id: string; headers: Record<string, string> };
let stack: Stack;
let platform: Provider;
let advertiser: Provider;
let counter = 0;
const fresh = (prefix: string) => `${prefix}-${(counter += 1)}`;

beforeAll(async () => {
  stack = await startStack('points');
  platform = await stack.createProvider('platform');
  advertiser = await stack.createProvider('advertiser');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const task = (n: number, event: string, value: number) => ({
  sequence_number: n,
  name: `Task ${n}`,
  condition_event_type: event,
  reward_type: 'points',
  reward_name: `${value} points`,
  reward_value: value,
});

async function createChain(body: Record<string, unknown>) {
  const answer = await stack.call('POST', '/admin/v1/quest-chains', {
    headers: adminHeaders,
    body: {
      platform_id: platform.id,
      advertiser_id: advertiser.id,
      name: fresh('chain'),
      start_date: '2020-01-01T00:00:00Z',
      end_date: '2099-01-01T00:00:00Z',
      ...body,
    },
  });
  expect(answer.status, answer.text).toBe(200);
  return answer.json.data as {
    quest_chain: { id: string; auto_claim: boolean };
    tasks: { id: string; sequence_number: number }[];
  };
}

const register = async (platformUserId: string, owner: Provider = platform) =>
  expect(
    (await stack.call('POST', '/v1/users/register', { headers: owner.headers, body: { platform_user_id: platformUserId } }))
      .status,
  ).toBe(200);

const send = async (platformUserId: string, eventType: string, owner: Provider = platform) => {
  const answer = await stack.call('POST', '/v1/events', {
    headers: owner.headers,
    body: { user_id: platformUserId, event_type: eventType, timestamp: new Date(Date.now() - 1000).toISOString() },
  });
  expect(answer.status, answer.text).toBe(200);
};

const points = (platformUserId: string, owner: Provider = platform, query: Record<string, string> = {}) =>
  stack.call('GET', `/v1/users/${platformUserId}/points`, { headers: owner.headers, query });
const spend = (platformUserId: string, body: Record<string, unknown>, owner: Provider = platform) =>
  stack.call('POST', `/v1/users/${platformUserId}/points/spend`, { headers: owner.headers, body });
const rewards = (platformUserId: string) => stack.call('GET', `/v1/rewards/${platformUserId}`, { headers: platform.headers });

/** Waits until the worker matched the user's events far enough for `claimable` entries to be listed. */
const claimableOnceMatched = (platformUserId: string, count: number) =>
  eventually(
    async () => {
      const listed = await rewards(platformUserId);
      return listed.json.data.claimable.length >= count ? listed.json.data.claimable : undefined;
    },
    { what: `${count} claimable rewards of ${platformUserId}` },
  );

/** A user with 110 points: task rewards of 10 and 100, earned by two events and claimed by the platform. */
async function userWith110(chain: { tasks: { id: string }[] }, types: [string, string]) {
  const user = fresh('player');
  await register(user);
  await send(user, types[0]);
  await send(user, types[1]);
  await claimableOnceMatched(user, 2);
  for (const { id } of chain.tasks) {
    const claim = await stack.call('POST', '/v1/rewards/claim', {
      headers: platform.headers,
      body: { platform_user_id: user, task_id: id },
    });
    expect(claim.status, claim.text).toBe(200);
  }
  return user;
}

describe('points over HTTP', () => {
  let chain: Awaited<ReturnType<typeof createChain>>;
  const types: [string, string] = ['pt-buy', 'pt-review'];
  beforeAll(async () => {
    chain = await createChain({ allow_any_order: true, tasks: [task(1, types[0], 10), task(2, types[1], 100)] });
  });

  it('credits claims, answers the ledger, and spends once per key', async () => {
    const user = await userWith110(chain, types);
    const read = await points(user);
    expect(read.status).toBe(200);
    expect(read.json.data).toMatchObject({
      balance: 110,
      earned: 110,
      spent: 0,
      reversed: 0,
      has_more: false,
      next_cursor: null,
    });
    expect(read.json.data.entries.map((entry: { kind: string; amount: number }) => [entry.kind, entry.amount]).sort()).toEqual([
      ['claim', 10],
      ['claim', 100],
    ]);

    const first = await spend(user, { amount: 30, idempotency_key: 'order-1', reason: 'Sticker pack' });
    expect(first.json.data).toMatchObject({ amount: 30, balance: 80, already_spent: false });
    expect((await spend(user, { amount: 30, idempotency_key: 'order-1' })).json.data).toEqual({
      ...first.json.data,
      already_spent: true,
    });
    const reused = await spend(user, { amount: 31, idempotency_key: 'order-1' });
    expect(reused).toMatchObject({ status: 409, json: { code: 'idempotency_key_reused', param: 'idempotency_key' } });
    const short = await spend(user, { amount: 81, idempotency_key: 'order-2' });
    expect(short).toMatchObject({ status: 409, json: { code: 'insufficient_points', param: 'amount', balance: 80 } });

    const page = await points(user, platform, { limit: '1' });
    expect(page.json.data).toMatchObject({ balance: 80, has_more: true });
    expect(page.json.data.entries).toMatchObject([{ kind: 'spend', amount: -30, balance_after: 80 }]);
    const next = await points(user, platform, { limit: '1', starting_after: page.json.data.next_cursor });
    expect(next.json.data.entries[0].balance_after).toBe(110);
  });

  it('grants exactly 11 of 20 concurrent spends of 10 on a balance of 110', async () => {
    const user = await userWith110(chain, types);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => spend(user, { amount: 10, idempotency_key: `race-${i}` })),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(11);
    const refused = answers.filter((answer) => answer.status === 409);
    expect(refused).toHaveLength(9);
    for (const answer of refused) expect(answer.json).toMatchObject({ code: 'insufficient_points', balance: 0 });
    const balances = answers.filter((answer) => answer.status === 200).map((answer) => answer.json.data.balance);
    expect(balances.sort((a: number, b: number) => a - b)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    const read = await points(user, platform, { limit: '100' });
    expect(read.json.data).toMatchObject({ balance: 0, earned: 110, spent: 110 });
    const entries = read.json.data.entries as { amount: number }[];
    expect(entries.reduce((sum, entry) => sum + entry.amount, 0)).toBe(0);
  });

  it('answers 400 naming the field, and 403 to an advertiser', async () => {
    for (const [body, param] of [
      [{ amount: 0, idempotency_key: 'k' }, 'amount'],
      [{ amount: 2.5, idempotency_key: 'k' }, 'amount'],
      [{ amount: 1 }, 'idempotency_key'],
      [{ amount: 1, idempotency_key: 'k', extra: true }, 'extra'],
    ] as const) {
      const answer = await spend('anyone', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json.param).toBe(param);
    }
    expect((await points('anyone', platform, { limit: '101' })).json).toMatchObject({ code: 'invalid_field', param: 'limit' });
    expect((await points('anyone', advertiser)).status).toBe(403);
    expect((await spend('anyone', { amount: 1, idempotency_key: 'k' }, advertiser)).status).toBe(403);
  });

  it('refuses a points reward that is not a whole number at chain creation', async () => {
    const answer = await stack.call('POST', '/admin/v1/quest-chains', {
      headers: adminHeaders,
      body: {
        platform_id: platform.id,
        advertiser_id: advertiser.id,
        name: 'Fractional',
        start_date: '2020-01-01T00:00:00Z',
        end_date: '2099-01-01T00:00:00Z',
        tasks: [task(1, 'pt-frac', 2.5)],
      },
    });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ code: 'invalid_field', param: 'tasks.0.reward_value' });
  });

  it('keeps test mode apart: a test credential has its own users and balances', async () => {
    const user = await userWith110(chain, types);
    const made = await stack.call('POST', `/admin/v1/providers/${platform.id}/credentials`, {
      headers: adminHeaders,
      body: { mode: 'test' },
    });
    expect(made.status).toBe(200);
    const test = { id: platform.id, headers: { 'x-api-key': made.json.data.key, 'x-api-secret': made.json.data.secret } };
    await register(user, test);
    expect((await points(user, test)).json).toMatchObject({ livemode: false, data: { balance: 0, entries: [] } });
    expect((await spend(user, { amount: 1, idempotency_key: 'k' }, test)).json).toMatchObject({
      livemode: false,
      code: 'insufficient_points',
      balance: 0,
    });
    expect((await points(user)).json).toMatchObject({ livemode: true, data: { balance: 110 } });
  });
});

describe('auto-claim over the real worker', () => {
  it('claims a task reward and draws a mystery box as the events earn them, crediting the points', async () => {
    const type = fresh('ac-box');
    const chain = await createChain({
      auto_claim: true,
      tasks: [task(1, type, 15)],
      chain_reward: {
        type: 'mystery_box',
        name: 'Box',
        value: 5,
        prizes: [{ prize_id: 'gold', name: 'Gold', value: 5, weight: 1, stock: 10 }],
      },
    });
    expect(chain.quest_chain.auto_claim).toBe(true);
    const user = fresh('auto');
    await register(user);
    await send(user, type);
    const claimed = await eventually(
      async () => {
        const listed = (await rewards(user)).json.data;
        return listed.claimed.length === 2 && listed.claimable.length === 0 ? listed.claimed : undefined;
      },
      { what: 'both rewards auto-claimed' },
    );
    const box = claimed.find((claim: { kind: string }) => claim.kind === 'chain');
    expect(box).toMatchObject({ reward: { type: 'mystery_box' }, prize: { prize_id: 'gold' } });
    const draw = await stack.call('GET', `/v1/rewards/draws/${box.claim_id}`, { headers: platform.headers });
    expect(draw.status).toBe(200);
    expect((await points(user)).json.data).toMatchObject({ balance: 15, earned: 15 });
    // The platform's own claim now finds the service's.
    const again = await stack.call('POST', '/v1/rewards/claim', {
      headers: platform.headers,
      body: { platform_user_id: user, task_id: chain.tasks[0]!.id },
    });
    expect(again.json.data).toMatchObject({ already_claimed: true });
    // The active read shows both claimed: nothing claimable, the box not claimable.
    const active = (await stack.call('GET', `/v1/quest-chains/active/${user}`, { headers: platform.headers })).json.data;
    expect(active.claimable_tasks).toEqual([]);
    const entry = active.quest_chains.find((c: { quest_chain: { id: string } }) => c.quest_chain.id === chain.quest_chain.id);
    expect(entry.chain_reward).toMatchObject({ type: 'mystery_box', claimable: false });
  });

  it('keeps the budget: of three users earning 10 points each under a budget of 25, two are claimed', async () => {
    const type = fresh('ac-budget');
    const chain = await createChain({ auto_claim: true, budget: 25, tasks: [task(1, type, 10)] });
    const users = [fresh('budget'), fresh('budget'), fresh('budget')];
    for (const user of users) await register(user);
    await Promise.all(users.map((user) => send(user, type)));
    // Each user's reward is claimed or, over the budget, left claimable; the worker settles all three.
    const settled = await eventually(
      async () => {
        const lists = await Promise.all(users.map(async (user) => (await rewards(user)).json.data));
        const done = lists.every((list) => list.claimed.length + list.claimable.length === 1);
        const claimedCount = lists.filter((list) => list.claimed.length === 1).length;
        return done && claimedCount === 2 ? lists : undefined;
      },
      { what: 'two auto-claims granted' },
    );
    expect(settled.filter((list) => list.claimable.length === 1)).toHaveLength(1);
    const balances = await Promise.all(users.map(async (user) => (await points(user)).json.data.balance));
    expect(balances.sort()).toEqual([0, 10, 10]);
    const stats = await stack.call('GET', `/admin/v1/quest-chains/${chain.quest_chain.id}/stats`, { headers: adminHeaders });
    expect(stats.json.data).toMatchObject({ budget: { budget: 25, spent: 20, left: 5 }, points_paid_out: 20 });
    // The refused one stays refused: nothing more is claimed later.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const again = await Promise.all(users.map(async (user) => (await points(user)).json.data.balance));
    expect(again.sort()).toEqual([0, 10, 10]);
  });
});
