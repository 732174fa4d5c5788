import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../api/testing/sse-reader.js';
import { users } from '../shared/db/schema/index.js';
import { senderUserId } from '../shared/domain/ids.js';
import { adminHeaders } from '../shared/testing/admin-token.js';
import { eventually } from '../shared/testing/eventually.js';
import { type Stack, startStack } from './harness/stack.js';

// Linking, rewards and live updates through the real processes: the built
// API and a worker, talking over Postgres and Redis as in production.

let stack: Stack;
let platform: { id: string; headers: Record<string, string> };
let advertiser: { id: string; headers: Record<string, string> };
let chainId: string;
let taskIds: string[];

beforeAll(async () => {
  stack = await startStack('linking_live', { env: { SHUTDOWN_TIMEOUT_MS: '8000' } });
  platform = await stack.createProvider('platform');
  advertiser = await stack.createProvider('advertiser');
  const chain = await stack.call('POST', '/admin/v1/quest-chains', {
    headers: adminHeaders,
    body: {
      platform_id: platform.id,
      advertiser_id: advertiser.id,
      name: 'Connect and play',
      start_date: '2020-01-01T00:00:00Z',
      end_date: '2099-01-01T00:00:00Z',
      tasks: [
        {
          sequence_number: 1,
          name: 'Buy at the shop',
          condition_event_type: 'purchase',
          reward_type: 'points',
          reward_name: '10 points',
          reward_value: 10,
        },
        {
          sequence_number: 2,
          name: 'Link your account',
          condition_event_type: 'link_account',
          reward_type: 'points',
          reward_name: '20 points',
          reward_value: 20,
        },
        {
          sequence_number: 3,
          name: 'Reach level 2',
          condition_event_type: 'level_up',
          reward_type: 'points',
          reward_name: '30 points',
          reward_value: 30,
        },
      ],
      chain_reward: { type: 'mystery_box', name: 'Gold box', value: 100 },
    },
  });
  expect(chain.status).toBe(200);
  chainId = chain.json.data.quest_chain.id;
  taskIds = [...chain.json.data.tasks]
    .sort((a, b) => a.sequence_number - b.sequence_number)
    .map((task: { id: string }) => task.id);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

const rewards = () => stack.call('GET', '/v1/rewards/player-1', { headers: platform.headers });
const claimableKinds = (answer: { json: any }) =>
  answer.json.data.claimable.map((entry: { kind: string; task_id?: string }) =>
    entry.kind === 'chain' ? 'chain' : taskIds.indexOf(entry.task_id!) + 1,
  );

describe('link, progress, live updates and rewards end to end', () => {
  it('counts an earlier advertiser event after the link, completes the link task, streams progress and gates the chain reward', async () => {
    expect(
      (await stack.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: 'player-1' } }))
        .status,
    ).toBe(200);
    // The advertiser's event arrives before the link exists: stored, but it counts for nobody yet.
    const purchase = await stack.call('POST', '/v1/events', {
      headers: advertiser.headers,
      body: { user_id: 'adv-42', event_type: 'purchase', timestamp: new Date(Date.now() - 60_000).toISOString(), amount: 5 },
    });
    expect(purchase.status).toBe(200);

    const read = await stack.call('GET', '/v1/quest-chains/active/player-1', { headers: platform.headers });
    const { token, baselineTimestamp } = read.json.data.liveUpdates;
    const query = new URLSearchParams({ token, ...(baselineTimestamp ? { since: baselineTimestamp } : {}) });
    // The browser's side: no API headers, only the token.
    const response = await fetch(`${stack.api.url}/v1/live?${query}`);
    expect(response.status).toBe(200);
    const live = readSse(response.body!);
    await live.nextEvent('ready');
    // Let the registration's evaluation finish, so what follows is the link's doing.
    await eventually(
      async () => {
        const [user] = await stack.database.db
          .select({ needs_evaluation: users.needsEvaluation })
          .from(users)
          .where(eq(users.platformUserId, senderUserId('player-1')));
        return user?.needs_evaluation === false ? true : undefined;
      },
      { what: 'registration evaluated' },
    );
    expect((await rewards()).json.data.claimable).toEqual([]);

    const started = await stack.call('POST', '/v1/account-links', {
      headers: platform.headers,
      body: { platform_user_id: 'player-1', advertiser_id: advertiser.id },
    });
    expect(started.status).toBe(200);
    const linked = await stack.call('POST', '/v1/account-links/complete', {
      headers: advertiser.headers,
      body: { connection_token: started.json.data.connection_token, advertiser_user_id: 'adv-42' },
    });
    expect(linked.status).toBe(200);
    expect(linked.json.data.already_linked).toBe(false);

    // The stream opened before the change hears about it.
    const progress = await live.nextEvent('progress', 20_000);
    expect(JSON.parse(progress.data!).quest_chain_ids).toContain(chainId);

    // The purchase (sent before the link) and the link itself completed tasks 1 and 2; the chain is not complete.
    await eventually(
      async () => {
        const answer = await rewards();
        return JSON.stringify(claimableKinds(answer)) === '[1,2]' ? answer : undefined;
      },
      { what: 'tasks 1 and 2 claimable' },
    );
    const early = await stack.call('POST', '/v1/rewards/claim', {
      headers: platform.headers,
      body: { platform_user_id: 'player-1', quest_chain_id: chainId },
    });
    expect(early.status).toBe(409);
    const activeBefore = await stack.call('GET', '/v1/quest-chains/active/player-1', { headers: platform.headers });
    expect(activeBefore.json.data.quest_chains[0].chain_reward.claimable).toBe(false);

    const levelUp = await stack.call('POST', '/v1/events', {
      headers: platform.headers,
      body: { user_id: 'player-1', event_type: 'level_up', timestamp: new Date().toISOString() },
    });
    expect(levelUp.status).toBe(200);
    await live.nextEvent('progress', 20_000);
    const complete = await eventually(
      async () => {
        const answer = await rewards();
        return JSON.stringify(claimableKinds(answer)) === '[1,2,3,"chain"]' ? answer : undefined;
      },
      { what: 'chain reward claimable' },
    );
    expect(complete.json.data.claimable.at(-1)).toMatchObject({
      kind: 'chain',
      quest_chain_id: chainId,
      reward: { type: 'mystery_box', name: 'Gold box', value: 100 },
    });
    const activeAfter = await stack.call('GET', '/v1/quest-chains/active/player-1', { headers: platform.headers });
    expect(activeAfter.json.data.quest_chains[0].chain_reward.claimable).toBe(true);

    const claimed = await stack.call('POST', '/v1/rewards/claim', {
      headers: platform.headers,
      body: { platform_user_id: 'player-1', quest_chain_id: chainId },
    });
    expect(claimed.status).toBe(200);
    expect(claimed.json.data).toMatchObject({ kind: 'chain', already_claimed: false, reward: { name: 'Gold box' } });
    const after = await rewards();
    expect(claimableKinds(after)).toEqual([1, 2, 3]);
    expect(after.json.data.claimed.map((entry: { claim_id: string }) => entry.claim_id)).toEqual([claimed.json.data.claim_id]);

    // SIGTERM with the stream still open: the API ends it and exits cleanly, well before its deadline.
    expect(await stack.api.stop('SIGTERM')).toBe(0);
    await live.ended();
  }, 90_000);
});
