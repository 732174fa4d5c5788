import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainBody, DAY_MS, iso } from '../api/testing/chains.js';
import { createRedis } from '../shared/queue/connection.js';
import { adminHeaders } from '../shared/testing/admin-token.js';
import { eventually } from '../shared/testing/eventually.js';
import { startWebhookReceiver, type WebhookReceiver } from '../shared/testing/webhook-receiver.js';
import { type Stack, startStack } from './harness/stack.js';

// Leaderboards (§19) over HTTP against the built API and a real worker: each
// route, standings kept in step with the matcher and with claims (within a
// second), the same standings after Redis loses them, a period finalized by
// the worker with its leaderboard.finalized webhook, tenancy and test mode.

let stack: Stack;
let platform: { id: string; headers: Record<string, string> };
let advertiser: { id: string; headers: Record<string, string> };
let hooks: WebhookReceiver;
let taskId: string;
const now = Date.now();

const admin = (method: string, path: string, body?: unknown) =>
  stack.call(method, path, { headers: adminHeaders, ...(body === undefined ? {} : { body }) });
const asPlatform = (path: string, query: Record<string, string> = {}, caller = platform) =>
  stack.call('GET', path, { headers: caller.headers, query });

async function createBoard(body: Record<string, unknown>) {
  const answer = await admin('POST', '/admin/v1/leaderboards', { platform_id: platform.id, ...body });
  expect(answer.status, answer.text).toBe(200);
  return answer.json.data as { id: string; start_date: string };
}

async function send(user: string, type: string, at: number) {
  const answer = await stack.call('POST', '/v1/events', {
    headers: platform.headers,
    body: { user_id: user, event_type: type, timestamp: iso(at) },
  });
  expect(answer.status, answer.text).toBe(200);
}

const entriesOf = async (boardId: string, query: Record<string, string> = {}) =>
  (await asPlatform(`/v1/leaderboards/${boardId}`, query)).json.data?.entries as
    | { rank: number; platform_user_id: string; score: number }[]
    | undefined;

beforeAll(async () => {
  stack = await startStack('leaderboards', {
    workerCount: 1,
    env: {
      LEADERBOARD_SETTLE_MS: '0',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_SCALE: '0.001',
    },
  });
  platform = await stack.createProvider('platform');
  advertiser = await stack.createProvider('advertiser');
  hooks = await startWebhookReceiver();
  const endpoint = await stack.call('POST', '/v1/webhook-endpoints', {
    headers: platform.headers,
    body: { url: hooks.url, event_types: ['leaderboard.finalized'] },
  });
  expect(endpoint.status, endpoint.text).toBe(200);
  const chain = await admin(
    'POST',
    '/admin/v1/quest-chains',
    chainBody(platform.id, advertiser.id, {
      start: iso(now - 2 * DAY_MS),
      end: iso(now + 2 * DAY_MS),
      tasks: [{ event: 'lb-step' }],
      reward: { type: 'points', name: 'Five points', value: 5 },
    }),
  );
  expect(chain.status, chain.text).toBe(200);
  taskId = chain.json.data.tasks[0].id;
  for (const user of ['ana', 'ben', 'cy'])
    expect(
      (await stack.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: user } })).status,
    ).toBe(200);
}, 120_000);

afterAll(async () => {
  await hooks?.stop();
  await stack?.stop();
});

describe('leaderboards over HTTP', () => {
  it('the operator creates, gets, lists and archives; the platform lists its own', async () => {
    const board = await createBoard({ name: 'Weekly', metric: 'points', start_date: iso(now), recurrence: { every: 'week' } });
    expect((await admin('GET', `/admin/v1/leaderboards/${board.id}`)).json.data).toMatchObject({
      id: board.id,
      status: 'active',
    });
    const listed = await stack.call('GET', '/admin/v1/leaderboards', {
      headers: adminHeaders,
      query: { platform_id: platform.id },
    });
    expect(listed.json.data.leaderboards.map((b: { id: string }) => b.id)).toContain(board.id);
    const mine = await asPlatform('/v1/leaderboards');
    expect(mine.status, mine.text).toBe(200);
    expect(mine.json.data.leaderboards.map((b: { id: string }) => b.id)).toContain(board.id);
    const archived = await admin('POST', `/admin/v1/leaderboards/${board.id}/archive`);
    expect(archived.json.data.status).toBe('archived');
    expect((await asPlatform('/v1/leaderboards')).json.data.leaderboards.map((b: { id: string }) => b.id)).not.toContain(
      board.id,
    );
    expect((await asPlatform(`/v1/leaderboards/${board.id}`)).status).toBe(404);
    const refused = await admin('POST', '/admin/v1/leaderboards', {
      platform_id: platform.id,
      name: 'x',
      metric: 'logins',
      start_date: iso(now),
    });
    expect([refused.status, refused.json.param]).toEqual([400, 'metric']);
  });

  it('chains completed and points follow the worker and claims within a second, and survive Redis losing them', async () => {
    const chains = await createBoard({ name: 'Chains', metric: 'chains_completed', start_date: iso(now - DAY_MS) });
    const points = await createBoard({ name: 'Points', metric: 'points', start_date: iso(now - DAY_MS) });
    // Built (empty) before anything happens: what follows reaches them by the refreshes alone.
    expect(await entriesOf(chains.id)).toEqual([]);
    expect(await entriesOf(points.id)).toEqual([]);

    await send('ben', 'lb-step', now - 60_000);
    await send('ana', 'lb-step', now - 30_000);
    await eventually(async () => ((await entriesOf(chains.id))?.length === 2 ? true : undefined), {
      what: 'the matcher to complete both chains',
      timeoutMs: 20_000,
    });
    expect(await entriesOf(chains.id)).toEqual([
      { rank: 1, platform_user_id: 'ben', score: 1 },
      { rank: 2, platform_user_id: 'ana', score: 1 },
    ]);

    const claimed = await stack.call('POST', '/v1/rewards/claim', {
      headers: platform.headers,
      body: { platform_user_id: 'ana', task_id: taskId },
    });
    expect(claimed.status, claimed.text).toBe(200);
    const claimedAt = Date.now();
    let shownAfterMs = Number.POSITIVE_INFINITY;
    await eventually(
      async () => {
        const entries = await entriesOf(points.id);
        if (entries?.length !== 1) return undefined;
        shownAfterMs = Date.now() - claimedAt;
        return true;
      },
      { what: 'the credit in the standings', timeoutMs: 5_000, intervalMs: 20 },
    );
    expect(shownAfterMs, 'a credit shows in the standings within 1 s').toBeLessThan(1000);
    expect(await entriesOf(points.id)).toEqual([{ rank: 1, platform_user_id: 'ana', score: 10 }]);
    const around = await asPlatform(`/v1/leaderboards/${chains.id}`, { around: 'ana', limit: '1' });
    expect(around.json.data).toMatchObject({ entries: [{ rank: 2, platform_user_id: 'ana' }], user: { rank: 2, score: 1 } });

    // Redis loses the stack's standings: the same answers, rebuilt from Postgres.
    const redis = createRedis('redis://127.0.0.1:6379', 'worker');
    try {
      const keys = await redis.keys(`${stack.queuePrefix}:{lb:*`);
      expect(keys.length).toBeGreaterThan(0);
      await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
    expect(await entriesOf(chains.id)).toEqual([
      { rank: 1, platform_user_id: 'ben', score: 1 },
      { rank: 2, platform_user_id: 'ana', score: 1 },
    ]);
    expect(await entriesOf(points.id)).toEqual([{ rank: 1, platform_user_id: 'ana', score: 10 }]);
  }, 60_000);

  it('the worker finalizes a period when it ends and announces its top entries', async () => {
    const start = Date.now() - DAY_MS;
    const end = Date.now() + 2_000;
    const board = await createBoard({
      name: 'Sprint',
      metric: 'chains_completed',
      start_date: iso(start),
      end_date: iso(end),
      size: 1,
    });
    await send('cy', 'lb-step', start + 1000);
    await eventually(async () => ((await entriesOf(board.id))?.some((e) => e.platform_user_id === 'cy') ? true : undefined), {
      what: "cy's completion in the standings",
      timeoutMs: 20_000,
    });
    const fact = await eventually(
      async () => hooks.received.find((r) => r.json.type === 'leaderboard.finalized' && r.json.data.leaderboard_id === board.id),
      { what: 'leaderboard.finalized delivered', timeoutMs: 30_000 },
    );
    expect(fact.json.livemode).toBe(true);
    expect(fact.json.data).toMatchObject({
      leaderboard_id: board.id,
      metric: 'chains_completed',
      period_start: iso(start),
      period_end: iso(end),
      ranked: 1,
      // Size 1: the final standings keep the top entry (cy completed first, within the period).
      entries: [{ rank: 1, platform_user_id: 'cy', score: 1 }],
    });
    const final = await asPlatform(`/v1/leaderboards/${board.id}`, { period_start: iso(start), around: 'ana' });
    expect(final.json.data).toMatchObject({ final: true, entries: [{ rank: 1, platform_user_id: 'cy' }], user: null });
  }, 60_000);

  it('hides a board from another platform, from advertisers, and from the other mode', async () => {
    const other = await stack.createProvider('platform');
    const board = await createBoard({ name: 'Mine', metric: 'points', start_date: iso(now) });
    expect((await asPlatform(`/v1/leaderboards/${board.id}`, {}, other)).status).toBe(404);
    expect((await asPlatform(`/v1/leaderboards/${board.id}`, {}, advertiser)).status).toBe(403);
    expect((await asPlatform('/v1/leaderboards', {}, advertiser)).status).toBe(403);

    const credential = await admin('POST', `/admin/v1/providers/${platform.id}/credentials`, { mode: 'test' });
    expect(credential.status, credential.text).toBe(200);
    const test = {
      id: platform.id,
      headers: { 'x-api-key': credential.json.data.key, 'x-api-secret': credential.json.data.secret },
    };
    const testBoard = await createBoard({ name: 'Sandbox', metric: 'points', start_date: iso(now), mode: 'test' });
    const listed = await asPlatform('/v1/leaderboards', {}, test);
    expect(listed.json.livemode).toBe(false);
    expect(listed.json.data.leaderboards.map((b: { id: string }) => b.id)).toEqual([testBoard.id]);
    expect((await asPlatform(`/v1/leaderboards/${board.id}`, {}, test)).status).toBe(404);
    expect((await asPlatform(`/v1/leaderboards/${testBoard.id}`)).status).toBe(404);
    const read = await asPlatform(`/v1/leaderboards/${testBoard.id}`, {}, test);
    expect([read.status, read.json.livemode, read.json.data.entries]).toEqual([200, false, []]);
  });
});
