import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pointEntries } from '../../../shared/db/schema/index.js';
import type { ServiceUserId } from '../../../shared/domain/ids.js';
import { twinId } from '../../../shared/domain/test-mode.js';
import { createTestChain } from '../../../shared/testing/chains.js';
import type { TestProvider } from '../../../shared/testing/fixtures.js';
import { storeCompletion } from '../../../shared/testing/progress.js';
import { chainBody } from '../../testing/chains.js';
import { useTestService } from '../../testing/test-service.js';

// Product rules §18 over the in-process app: the ledger a claim credits, the
// read and its pages, spends with their idempotency, refusals and bad input,
// and the test mode kept apart. Concurrency over real HTTP: e2e/points.e2e.test.ts.

const { database, api, platform, advertiser } = useTestService('points');

const register = async (owner: TestProvider, platformUserId: string): Promise<ServiceUserId> => {
  const answer = await api.call('POST', '/v1/users/register', {
    headers: owner.headers,
    body: { platform_user_id: platformUserId },
  });
  expect(answer.status, answer.text).toBe(200);
  return answer.json.data.user_id as ServiceUserId;
};

const claim = (owner: TestProvider, body: Record<string, unknown>) =>
  api.call('POST', '/v1/rewards/claim', { headers: owner.headers, body });

/** A registered user with 110 points: a task reward of 10 and a chain reward of 100 points, claimed. Answers the claims. */
async function earn110(owner: TestProvider, platformUserId: string) {
  const userId = await register(owner, platformUserId);
  const chain = await createTestChain(database.db, owner.id, advertiser.id, {
    tasks: [{ event: 'deposit' }],
    reward: { type: 'points', name: '100 points', value: 100 },
  });
  await storeCompletion(database.db, {
    userId,
    providerId: owner.id,
    platformUserId,
    taskId: chain.taskIds[0]!,
    chainId: chain.id,
    at: new Date(Date.now() - 60_000).toISOString(),
  });
  const task = await claim(owner, { platform_user_id: platformUserId, task_id: chain.taskIds[0] });
  const whole = await claim(owner, { platform_user_id: platformUserId, quest_chain_id: chain.id });
  expect([task.status, whole.status]).toEqual([200, 200]);
  return { chain, userId, taskClaim: task.json.data.claim_id as string, chainClaim: whole.json.data.claim_id as string };
}

const read = (platformUserId: string, query: Record<string, string> = {}, owner: TestProvider = platform) =>
  api.call('GET', `/v1/users/${platformUserId}/points`, { headers: owner.headers, query });

const spend = (platformUserId: string, body: Record<string, unknown>, owner: TestProvider = platform) =>
  api.call('POST', `/v1/users/${platformUserId}/points/spend`, { headers: owner.headers, body });

describe('GET /v1/users/{platformUserId}/points', () => {
  it('answers 0 and no entries for an unknown user', async () => {
    const answer = await read('nobody');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      success: true,
      livemode: true,
      data: { balance: 0, earned: 0, spent: 0, reversed: 0, entries: [], has_more: false, next_cursor: null },
    });
  });

  it('shows the credits of claimed points rewards, newest first, adding up to the balance', async () => {
    const { chain, taskClaim, chainClaim } = await earn110(platform, 'reader-1');
    const answer = await read('reader-1');
    expect(answer.status).toBe(200);
    const { entries, ...figures } = answer.json.data;
    expect(figures).toEqual({ balance: 110, earned: 110, spent: 0, reversed: 0, has_more: false, next_cursor: null });
    expect(entries).toEqual([
      {
        id: expect.any(String),
        kind: 'claim',
        amount: 100,
        balance_after: 110,
        claim_id: chainClaim,
        spend_id: null,
        quest_chain_id: chain.id,
        created_at: expect.stringMatching(/Z$/),
      },
      {
        id: expect.any(String),
        kind: 'claim',
        amount: 10,
        balance_after: 10,
        claim_id: taskClaim,
        spend_id: null,
        quest_chain_id: chain.id,
        created_at: expect.stringMatching(/Z$/),
      },
    ]);
  });

  it('credits nothing for a claim of another reward type', async () => {
    const platformUserId = 'boxed-1';
    const userId = await register(platform, platformUserId);
    const chain = await createTestChain(database.db, platform.id, advertiser.id, {
      tasks: [{ event: 'deposit' }],
      reward: { type: 'voucher', name: '5 EUR', value: 5 },
    });
    await storeCompletion(database.db, {
      userId,
      providerId: platform.id,
      platformUserId,
      taskId: chain.taskIds[0]!,
      chainId: chain.id,
      at: new Date().toISOString(),
    });
    expect((await claim(platform, { platform_user_id: platformUserId, quest_chain_id: chain.id })).status).toBe(200);
    expect((await read(platformUserId)).json.data).toMatchObject({ balance: 0, entries: [] });
  });

  it('pages the ledger by next_cursor, and refuses a cursor that is not an entry of the user', async () => {
    await earn110(platform, 'pager-1');
    for (let i = 0; i < 3; i += 1) expect((await spend('pager-1', { amount: 1, idempotency_key: `p${i}` })).status).toBe(200);
    const all = (await read('pager-1')).json.data.entries as { id: string; balance_after: number }[];
    expect(all.map((entry) => entry.balance_after)).toEqual([107, 108, 109, 110, 10]);
    const first = await read('pager-1', { limit: '2' });
    expect(first.json.data).toMatchObject({ has_more: true, next_cursor: all[1]!.id });
    expect(first.json.data.entries).toEqual(all.slice(0, 2));
    const second = await read('pager-1', { limit: '2', starting_after: first.json.data.next_cursor });
    expect(second.json.data.entries).toEqual(all.slice(2, 4));
    const last = await read('pager-1', { limit: '2', starting_after: second.json.data.next_cursor });
    expect(last.json.data).toMatchObject({ entries: all.slice(4), has_more: false, next_cursor: null });

    await earn110(platform, 'pager-2');
    const foreign = await read('pager-2', { starting_after: all[0]!.id });
    expect(foreign.status).toBe(400);
    expect(foreign.json).toMatchObject({ code: 'invalid_field', param: 'starting_after' });
  });

  it.each<{ query: Record<string, string>; param: string }>([
    { query: { limit: '0' }, param: 'limit' },
    { query: { limit: '101' }, param: 'limit' },
    { query: { limit: 'ten' }, param: 'limit' },
    { query: { starting_after: 'not-a-uuid' }, param: 'starting_after' },
  ])('answers 400 naming $param for $query', async ({ query, param }) => {
    const answer = await read('reader-1', query);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ success: false, code: 'invalid_field', param });
  });

  it('is for platforms: an advertiser answers 403', async () => {
    const answer = await read('reader-1', {}, advertiser as TestProvider);
    expect(answer.status).toBe(403);
    expect(answer.json.code).toBe('wrong_provider_type');
  });
});

describe('POST /v1/users/{platformUserId}/points/spend', () => {
  it('takes the amount once per idempotency key, answering a repeat with the first spend', async () => {
    await earn110(platform, 'spender-1');
    const first = await spend('spender-1', { amount: 30, idempotency_key: 'order-1', reason: 'Sticker pack' });
    expect(first.status).toBe(200);
    expect(first.json.data).toEqual({ spend_id: expect.any(String), amount: 30, balance: 80, already_spent: false });
    const again = await spend('spender-1', { amount: 30, idempotency_key: 'order-1' });
    expect(again.json.data).toEqual({ ...first.json.data, already_spent: true });
    // A later spend does not change what a repeat of the first one answers.
    expect((await spend('spender-1', { amount: 5, idempotency_key: 'order-2' })).json.data.balance).toBe(75);
    expect((await spend('spender-1', { amount: 30, idempotency_key: 'order-1' })).json.data.balance).toBe(80);

    const reused = await spend('spender-1', { amount: 31, idempotency_key: 'order-1' });
    expect(reused.status).toBe(409);
    expect(reused.json).toMatchObject({ success: false, code: 'idempotency_key_reused', param: 'idempotency_key' });

    const { entries, ...figures } = (await read('spender-1')).json.data;
    expect(figures).toMatchObject({ balance: 75, earned: 110, spent: 35, reversed: 0 });
    expect(entries[0]).toMatchObject({ kind: 'spend', amount: -5, balance_after: 75, claim_id: null, quest_chain_id: null });
    expect(entries[1]).toMatchObject({ kind: 'spend', amount: -30, balance_after: 80, spend_id: first.json.data.spend_id });
  });

  it('refuses a spend the balance does not cover with 409 insufficient_points and the balance, taking nothing', async () => {
    await earn110(platform, 'spender-2');
    const refused = await spend('spender-2', { amount: 111, idempotency_key: 'big' });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ success: false, code: 'insufficient_points', param: 'amount', balance: 110 });
    expect(refused.json.error).toContain('110');
    // The refused key was not used: it may spend what the balance covers.
    expect((await spend('spender-2', { amount: 110, idempotency_key: 'big' })).json.data).toMatchObject({ balance: 0 });
    expect((await read('spender-2')).json.data).toMatchObject({ balance: 0, spent: 110 });
  });

  it('grants exactly what the balance covers under concurrent spends', async () => {
    await earn110(platform, 'spender-3');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => spend('spender-3', { amount: 10, idempotency_key: `c${i}` })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(11);
    expect(answers.filter((a) => a.status === 409 && a.json.code === 'insufficient_points')).toHaveLength(9);
    expect((await read('spender-3')).json.data).toMatchObject({ balance: 0, spent: 110 });
  });

  it('answers 400 for an unknown user', async () => {
    const answer = await spend('nobody-at-all', { amount: 1, idempotency_key: 'k' });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ code: 'user_not_registered', param: 'platformUserId' });
  });

  it.each([
    { body: { amount: 0, idempotency_key: 'k' }, param: 'amount' },
    { body: { amount: -5, idempotency_key: 'k' }, param: 'amount' },
    { body: { amount: 1.5, idempotency_key: 'k' }, param: 'amount' },
    { body: { amount: '10', idempotency_key: 'k' }, param: 'amount' },
    { body: { idempotency_key: 'k' }, param: 'amount', code: 'missing_field' },
    { body: { amount: 1 }, param: 'idempotency_key', code: 'missing_field' },
    { body: { amount: 1, idempotency_key: '' }, param: 'idempotency_key' },
    { body: { amount: 1, idempotency_key: 'k'.repeat(256) }, param: 'idempotency_key' },
    { body: { amount: 1, idempotency_key: 'k', reason: 7 }, param: 'reason' },
    { body: { amount: 1, idempotency_key: 'k', note: 'x' }, param: 'note', code: 'unknown_field' },
  ])('answers 400 naming $param for $body', async ({ body, param, code }) => {
    await register(platform, `bad-${randomUUID()}`);
    const answer = await spend('spender-1', body);
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toMatchObject({ success: false, code: code ?? 'invalid_field', param });
  });

  it('is for platforms: an advertiser answers 403', async () => {
    const answer = await spend('spender-1', { amount: 1, idempotency_key: 'k' }, advertiser as TestProvider);
    expect(answer.status).toBe(403);
  });
});

describe('test mode (§15)', () => {
  it("keeps a test user's points apart from the live user of the same id", async () => {
    await earn110(platform, 'twin-1');
    const made = await api.call('POST', `/admin/v1/providers/${platform.id}/credentials`, {
      headers: api.adminHeaders,
      body: { mode: 'test' },
    });
    expect(made.status, made.text).toBe(200);
    const test = {
      ...platform,
      headers: { ...platform.headers, 'x-api-key': made.json.data.key, 'x-api-secret': made.json.data.secret },
    };
    const unregistered = await spend('twin-1', { amount: 1, idempotency_key: 'k' }, test);
    expect(unregistered.json).toMatchObject({ livemode: false, code: 'user_not_registered' });
    await register(test, 'twin-1');
    const answer = await read('twin-1', {}, test);
    expect(answer.json).toMatchObject({ livemode: false, data: { balance: 0, entries: [] } });
    const refused = await spend('twin-1', { amount: 1, idempotency_key: 'k' }, test);
    expect(refused.json).toMatchObject({ livemode: false, code: 'insufficient_points', balance: 0 });
    // The live user's ledger is untouched, and its entries are not a cursor of the test user's.
    const live = await read('twin-1');
    expect(live.json.data.balance).toBe(110);
    expect((await read('twin-1', { starting_after: live.json.data.entries[0].id }, test)).status).toBe(400);

    // A test chain's claim credits the test user; a reset deletes the test ledger, and the live one stays.
    const created = await api.call('POST', '/admin/v1/quest-chains', {
      headers: api.adminHeaders,
      body: { ...chainBody(platform.id, advertiser.id, { tasks: [{ event: 'twin-deposit' }], reward: false }), mode: 'test' },
    });
    expect(created.status, created.text).toBe(200);
    const testChain = created.json.data as { quest_chain: { id: string }; tasks: { id: string }[] };
    const testUserId = (
      await api.call('POST', '/v1/users/register', { headers: test.headers, body: { platform_user_id: 'twin-1' } })
    ).json.data.user_id as ServiceUserId;
    await storeCompletion(database.db, {
      userId: testUserId,
      providerId: twinId(platform.id),
      platformUserId: 'twin-1',
      taskId: testChain.tasks[0]!.id,
      chainId: testChain.quest_chain.id,
      at: new Date().toISOString(),
    });
    expect((await claim(test, { platform_user_id: 'twin-1', task_id: testChain.tasks[0]!.id })).status).toBe(200);
    expect((await spend('twin-1', { amount: 4, idempotency_key: 'k' }, test)).json.data).toMatchObject({ balance: 6 });
    expect((await read('twin-1', {}, test)).json.data).toMatchObject({ balance: 6, earned: 10, spent: 4 });
    const reset = await api.call('POST', '/v1/test/reset', { headers: test.headers });
    expect(reset.json.data.deleted).toMatchObject({ point_entries: 2, point_spends: 1, point_balances: 1 });
    expect((await read('twin-1')).json.data.balance).toBe(110);
  });
});

describe('the ledger is append-only', () => {
  it('refuses any update of an entry', async () => {
    await earn110(platform, 'append-1');
    await expect(database.db.update(pointEntries).set({ amount: 1_000_000n })).rejects.toThrow();
  });
});
