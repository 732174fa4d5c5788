import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainBody } from '../api/testing/chains.js';
import { readSse } from '../api/testing/sse-reader.js';
import { hashSecret } from '../shared/auth/secrets.js';
import { credentials } from '../shared/db/schema/index.js';
import { adminHeaders } from '../shared/testing/admin-token.js';
import { eventually } from '../shared/testing/eventually.js';
import { startWebhookReceiver, type WebhookReceiver } from '../shared/testing/webhook-receiver.js';
import { type Stack, startStack } from './harness/stack.js';
import { runBacktest } from './support/backtest.js';

// Test mode (docs/test-mode.md) end to end: the built API and a worker, one
// platform and one advertiser each holding a live and a test credential, a
// live and a test chain with the same tasks, the same user id registered in
// both modes. Every read, the live stream and every webhook must keep the two
// apart, and a reset must take the test side only.

let stack: Stack;
const receivers: WebhookReceiver[] = [];
beforeAll(async () => {
  stack = await startStack('test_mode_e2e', {
    env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCALE: '0.001' },
  });
}, 60_000);
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.stop()));
  await stack?.stop();
});

type Caller = { id: string; headers: Record<string, string>; key: string };

async function credential(providerId: string, mode: 'live' | 'test'): Promise<Caller> {
  const answer = await stack.call('POST', `/admin/v1/providers/${providerId}/credentials`, {
    headers: adminHeaders,
    body: { mode },
  });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  const { key, secret } = answer.json.data;
  return { id: providerId, key, headers: { 'x-api-key': key, 'x-api-secret': secret } };
}

async function provider(type: 'platform' | 'advertiser') {
  const created = await stack.call('POST', '/admin/v1/providers', {
    headers: adminHeaders,
    body: { type, name: `${type} test mode` },
  });
  const id = created.json.data.id as string;
  return { live: await credential(id, 'live'), test: await credential(id, 'test') };
}

const call = (caller: Caller, method: string, path: string, body?: unknown) =>
  stack.call(method, path, { headers: caller.headers, ...(body === undefined ? {} : { body }) });
const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();

async function endpoint(caller: Caller) {
  const receiver = await startWebhookReceiver();
  receivers.push(receiver);
  const answer = await call(caller, 'POST', '/v1/webhook-endpoints', {
    url: receiver.url,
    event_types: ['task.completed', 'chain.completed', 'reward.claimed'],
  });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return { id: answer.json.data.id as string, receiver };
}

async function link(platform: Caller, advertiser: Caller, platformUserId: string, advertiserUserId: string) {
  const started = await call(platform, 'POST', '/v1/account-links', {
    platform_user_id: platformUserId,
    advertiser_id: advertiser.id,
  });
  expect(started.status, JSON.stringify(started.json)).toBe(200);
  const done = await call(advertiser, 'POST', '/v1/account-links/complete', {
    connection_token: started.json.data.connection_token,
    advertiser_user_id: advertiserUserId,
  });
  expect(done.status, JSON.stringify(done.json)).toBe(200);
}

describe('test mode', () => {
  it('keeps test-mode and live-mode data apart in every read, the live stream and every webhook, and a reset takes the test side only', async () => {
    const platform = await provider('platform');
    const advertiser = await provider('advertiser');
    expect([platform.live.key, platform.test.key]).toEqual([
      expect.stringMatching(/^pk_live_/),
      expect.stringMatching(/^pk_test_/),
    ]);
    expect(platform.test.headers['x-api-secret']).toMatch(/^sk_test_/);

    const chainOf = async (mode: 'live' | 'test') => {
      const body = {
        ...chainBody(platform.live.id, advertiser.live.id, { tasks: [{ event: 'tm-a' }, { event: 'tm-b' }] }),
        mode,
        name: `${mode} chain`,
      };
      const answer = await stack.call('POST', '/admin/v1/quest-chains', { headers: adminHeaders, body });
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      // Shown with the providers' own ids, whatever the mode.
      expect(answer.json.data.quest_chain).toMatchObject({
        mode,
        platform_id: platform.live.id,
        advertiser_id: advertiser.live.id,
      });
      return answer.json.data.quest_chain.id as string;
    };
    const liveChain = await chainOf('live');
    const testChain = await chainOf('test');
    const hooks = { live: await endpoint(platform.live), test: await endpoint(platform.test) };

    // The same user id in both modes, and one more live user.
    const user = `same-${randomUUID().slice(0, 8)}`;
    for (const caller of [platform.live, platform.test])
      expect((await call(caller, 'POST', '/v1/users/register', { platform_user_id: user })).status).toBe(200);
    await call(platform.live, 'POST', '/v1/users/register', { platform_user_id: `${user}-only-live` });
    await link(platform.test, advertiser.test, user, 'adv-same');

    // A test stream opened now must hear test changes only.
    const testRead = await call(platform.test, 'GET', `/v1/quest-chains/active/${user}`);
    expect(testRead.json.livemode).toBe(false);
    const stream = readSse(
      (await fetch(`${stack.api.url}/v1/live?${new URLSearchParams({ token: testRead.json.data.liveUpdates.token })}`)).body!,
    );
    expect(JSON.parse((await stream.nextEvent('ready')).data!)).toEqual({ user_exists: true, livemode: false });

    // Live: both tasks from the platform. Test: task 1 from the platform, task 2 from the advertiser about the linked id.
    await call(platform.live, 'POST', '/v1/events/batch', {
      events: ['tm-a', 'tm-b'].map((event_type, i) => ({ user_id: user, event_type, timestamp: minutesAgo(10 - i) })),
    });
    const liveActive = await eventually(
      async () => {
        const answer = await call(platform.live, 'GET', `/v1/quest-chains/active/${user}`);
        return answer.json.data.quest_chains.some(
          (c: { user_progress: { status: string } }) => c.user_progress.status === 'completed',
        )
          ? answer
          : undefined;
      },
      { what: 'live chain completed' },
    );
    expect(liveActive.json.livemode).toBe(true);
    expect(liveActive.json.data.quest_chains.map((c: { quest_chain: { id: string } }) => c.quest_chain.id)).toEqual([liveChain]);
    // The live progress reached no test stream.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(stream.frames.filter((f) => f.event === 'progress')).toEqual([]);

    await call(platform.test, 'POST', '/v1/events', { user_id: user, event_type: 'tm-a', timestamp: minutesAgo(8) });
    await call(advertiser.test, 'POST', '/v1/events', { user_id: 'adv-same', event_type: 'tm-b', timestamp: minutesAgo(7) });
    const progress = await stream.nextEvent('progress', 20_000);
    expect(JSON.parse(progress.data!).quest_chain_ids).toEqual([testChain]);
    await stream.cancel();
    const testActive = await eventually(
      async () => {
        const answer = await call(platform.test, 'GET', `/v1/quest-chains/active/${user}`);
        return answer.json.data.quest_chains[0]?.user_progress.status === 'completed' ? answer : undefined;
      },
      { what: 'test chain completed' },
    );
    expect(
      testActive.json.data.quest_chains.map((c: { quest_chain: { id: string; platform_id: string } }) => [
        c.quest_chain.id,
        c.quest_chain.platform_id,
      ]),
    ).toEqual([[testChain, platform.live.id]]);

    // Claims, rewards, links, explain, endpoints: each mode sees its own.
    expect(
      (await call(platform.test, 'POST', '/v1/rewards/claim', { platform_user_id: user, quest_chain_id: testChain })).json,
    ).toMatchObject({ success: true, livemode: false });
    const crossClaim = await call(platform.test, 'POST', '/v1/rewards/claim', {
      platform_user_id: user,
      quest_chain_id: liveChain,
    });
    expect([crossClaim.status, crossClaim.json.code, crossClaim.json.livemode]).toEqual([400, 'quest_chain_not_found', false]);
    expect((await call(platform.live, 'GET', `/v1/rewards/${user}`)).json.data.claimed).toEqual([]);
    expect(
      (await call(platform.test, 'GET', `/v1/rewards/${user}`)).json.data.claimed.map(
        (c: { quest_chain_id: string }) => c.quest_chain_id,
      ),
    ).toEqual([testChain]);
    expect((await call(platform.live, 'GET', `/v1/account-links/${user}`)).json.data.links).toEqual([]);
    expect((await call(platform.test, 'GET', `/v1/account-links/${user}`)).json.data.links).toEqual([
      expect.objectContaining({ advertiser_id: advertiser.live.id, advertiser_user_id: 'adv-same' }),
    ]);
    expect((await call(platform.live, 'GET', `/v1/quest-chains/${testChain}/users/${user}/explain`)).status).toBe(404);
    expect((await call(platform.test, 'GET', `/v1/quest-chains/${liveChain}/users/${user}/explain`)).status).toBe(404);
    const testExplain = await call(platform.test, 'GET', `/v1/quest-chains/${testChain}/users/${user}/explain`);
    expect(testExplain.json.data.tasks.map((t: { completed_by: { source: string } }) => t.completed_by.source)).toEqual([
      'platform',
      'advertiser',
    ]);
    const endpointIds = async (caller: Caller) =>
      (await call(caller, 'GET', '/v1/webhook-endpoints')).json.data.endpoints.map((e: { id: string }) => e.id);
    expect([await endpointIds(platform.live), await endpointIds(platform.test)]).toEqual([[hooks.live.id], [hooks.test.id]]);
    expect((await call(platform.live, 'GET', `/v1/webhook-endpoints/${hooks.test.id}/messages`)).status).toBe(404);

    // Backtests run over one mode's users.
    const backtest = (mode: 'live' | 'test') =>
      runBacktest(
        stack,
        { ...chainBody(platform.live.id, advertiser.live.id, { tasks: [{ event: 'tm-a' }] }), mode },
        `${mode} backtest`,
      );
    expect((await backtest('live')).progress.users_total).toBe(2);
    expect((await backtest('test')).progress.users_total).toBe(1);

    // Webhooks: each endpoint got its own mode's facts, marked so.
    const expected = { live: [liveChain], test: [testChain] };
    for (const mode of ['live', 'test'] as const) {
      const { receiver } = hooks[mode];
      await eventually(async () => (receiver.received.some((r) => r.json.type === 'chain.completed') ? true : undefined), {
        what: `${mode} chain.completed delivered`,
      });
      expect(new Set(receiver.received.map((r) => r.json.livemode))).toEqual(new Set([mode === 'live']));
      expect(new Set(receiver.received.map((r) => r.json.data.quest_chain_id))).toEqual(new Set(expected[mode]));
    }
    await eventually(
      async () => (hooks.test.receiver.received.some((r) => r.json.type === 'reward.claimed') ? true : undefined),
      { what: 'test reward.claimed delivered' },
    );

    // Reset: refused to a live credential; a test one deletes the test side only.
    const refused = await call(platform.live, 'POST', '/v1/test/reset');
    expect([refused.status, refused.json.code, refused.json.livemode]).toEqual([403, 'test_mode_only', true]);
    const reset = await call(platform.test, 'POST', '/v1/test/reset');
    expect(reset.status, JSON.stringify(reset.json)).toBe(200);
    expect(reset.json.data.deleted).toMatchObject({ users: 1, reward_claims: 1, webhook_endpoints: 1, account_links: 1 });
    expect((await call(platform.test, 'GET', `/v1/quest-chains/active/${user}`)).json.data).toMatchObject({
      user: { exists: false },
      quest_chains: [],
    });
    expect(await endpointIds(platform.test)).toEqual([]);
    const liveAfter = await call(platform.live, 'GET', `/v1/quest-chains/active/${user}`);
    expect(liveAfter.json.data.quest_chains[0].user_progress.status).toBe('completed');
    expect(await endpointIds(platform.live)).toEqual([hooks.live.id]);
    // The test chain stays, for the next run.
    expect((await stack.call('GET', `/admin/v1/quest-chains/${testChain}`, { headers: adminHeaders })).status).toBe(200);
  }, 120_000);

  it('answers a read right after the reset from the reset data, not from the cached answer of before', async () => {
    const platform = await provider('platform');
    const user = `cached-${randomUUID()}`;
    expect((await call(platform.test, 'POST', '/v1/users/register', { platform_user_id: user })).status).toBe(200);
    const before = await call(platform.test, 'GET', `/v1/quest-chains/active/${user}`);
    expect(before.json.data.user.exists).toBe(true);
    // Cached now: the same tag again.
    expect((await call(platform.test, 'GET', `/v1/quest-chains/active/${user}`)).json.data.user.exists).toBe(true);
    expect((await call(platform.test, 'POST', '/v1/test/reset')).status).toBe(200);
    expect((await call(platform.test, 'GET', `/v1/quest-chains/active/${user}`)).json.data.user.exists).toBe(false);
  });

  it('keeps keys made before modes (pk_…) valid as live, and a deactivated provider closes both modes', async () => {
    const platform = await provider('platform');
    const key = `pk_${randomUUID().replaceAll('-', '')}`;
    const secret = `sk_${randomUUID()}`;
    await stack.database.db
      .insert(credentials)
      .values({ key, providerId: platform.live.id, secretHash: hashSecret(secret), permissions: ['users:register'] });
    const answer = await stack.call('POST', '/v1/users/register', {
      headers: { 'x-api-key': key, 'x-api-secret': secret },
      body: { platform_user_id: 'old-key-user' },
    });
    expect([answer.status, answer.json.livemode]).toEqual([200, true]);
    const listed = await stack.call('GET', `/admin/v1/providers/${platform.live.id}/credentials`, { headers: adminHeaders });
    expect(listed.json.data.credentials.map((c: { key: string; mode: string }) => [c.key.slice(0, 8), c.mode])).toEqual([
      [platform.live.key.slice(0, 8), 'live'],
      [platform.test.key.slice(0, 8), 'test'],
      [key.slice(0, 8), 'live'],
    ]);
    // Deactivating the provider closes its test mode too.
    expect(
      (
        await stack.call('PATCH', `/admin/v1/providers/${platform.live.id}`, {
          headers: adminHeaders,
          body: { status: 'inactive' },
        })
      ).status,
    ).toBe(200);
    const closed = await stack.call('POST', '/v1/users/register', {
      headers: platform.test.headers,
      body: { platform_user_id: 'after-deactivation' },
    });
    expect([closed.status, closed.json.code]).toEqual([403, 'provider_inactive']);
  });
});
