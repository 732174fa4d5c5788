import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookEndpoints, webhookMessages } from '../shared/db/schema/index.js';
import { eventually } from '../shared/testing/eventually.js';
import { startWebhookReceiver, type WebhookReceiver } from '../shared/testing/webhook-receiver.js';
import { type Stack, startStack } from './harness/stack.js';
import {
  createChain,
  createEndpoint,
  expectSigned,
  idsByFact,
  linkUser,
  type Provider,
  registerUser,
  sendBatch,
  sleep,
} from './support/webhook-world.js';

// Product rules §10 end to end: the built API and two workers as real processes, a local
// receiver, the development flags set (http:// to 127.0.0.1) and the retry schedule shrunk
// a thousandfold (first retry after ~5 ms, the ninth and last attempt after ~29 s).

let stack: Stack;
const receivers: WebhookReceiver[] = [];
beforeAll(async () => {
  stack = await startStack('webhooks_e2e', {
    workerCount: 2,
    // Debug: every attempt's log line is written, for the secrets check at the end.
    env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCALE: '0.001', LOG_LEVEL: 'debug' },
  });
}, 60_000);
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.stop()));
  await stack?.stop();
});

async function receiver() {
  const started = await startWebhookReceiver();
  receivers.push(started);
  return started;
}

const at = (base: number, seconds: number) => new Date(base + seconds * 1000).toISOString();

describe('each fact announced once, delivered signed', () => {
  it('under duplicates, late events that move a completion, two workers and a worker SIGKILL mid-burst; advertisers see only their own user ids', async () => {
    const platform: Provider = await stack.createProvider('platform');
    const advertiser: Provider = await stack.createProvider('advertiser');
    const [platformHooks, advertiserHooks] = [await receiver(), await receiver()];
    const platformEndpoint = await createEndpoint(stack, platform, platformHooks);
    const advertiserEndpoint = await createEndpoint(stack, advertiser, advertiserHooks);
    const chain = await createChain(stack, platform, advertiser, ['wa', 'wb', 'wc']);
    // Platform user ids distinctive enough that any leak into an advertiser's body would show.
    const tag = randomUUID().slice(0, 8);
    const users = Array.from({ length: 40 }, (_, i) => `pu-${tag}-${i}`);
    for (const user of users) await registerUser(stack, platform, user);
    const linked = users.filter((_, i) => i % 2 === 0);
    for (const user of linked) await linkUser(stack, platform, advertiser, user, `adv-${user}`);

    const base = Date.now() - 3_600_000;
    const eventsOf = (user: string) => [
      { user_id: user, event_type: 'wa', timestamp: at(base, 10) },
      { user_id: user, event_type: 'wb', timestamp: at(base, 20) },
      { user_id: user, event_type: 'wc', timestamp: at(base, 30) },
    ];
    const firstHalf = users.slice(0, 20).flatMap(eventsOf);
    await sendBatch(stack, platform, firstHalf);
    await sendBatch(stack, platform, firstHalf); // duplicates
    // Mid-burst: one worker dies without a word; another takes its place.
    await stack.workers[0]!.stop('SIGKILL');
    await stack.startWorker();
    const secondHalf = users.slice(20).flatMap(eventsOf);
    await sendBatch(stack, platform, secondHalf);
    // Late events: an earlier `wa` for everyone moves task 1's completion to it.
    await sendBatch(
      stack,
      platform,
      users.map((user) => ({ user_id: user, event_type: 'wa', timestamp: at(base, 5) })),
    );
    await sendBatch(stack, platform, secondHalf); // duplicates again

    const platformFacts = users.length * 4;
    const advertiserFacts = linked.length * 4;
    await eventually(async () => (idsByFact(platformHooks.received).size === platformFacts ? true : undefined), {
      timeoutMs: 60_000,
      what: 'every platform fact delivered',
    });
    await eventually(async () => (idsByFact(advertiserHooks.received).size === advertiserFacts ? true : undefined), {
      timeoutMs: 60_000,
      what: 'every advertiser fact delivered',
    });
    // Let anything that would come twice arrive.
    await sleep(3000);

    for (const [fact, ids] of [...idsByFact(platformHooks.received), ...idsByFact(advertiserHooks.received)])
      expect(ids.size, fact).toBe(1);
    expect(idsByFact(platformHooks.received).size).toBe(platformFacts);
    expect(idsByFact(advertiserHooks.received).size).toBe(advertiserFacts);
    const stored = await stack.database.db
      .select({ endpointId: webhookMessages.endpointId, n: sql<number>`count(*)::int` })
      .from(webhookMessages)
      .groupBy(webhookMessages.endpointId);
    expect(new Map(stored.map((row) => [row.endpointId, row.n]))).toEqual(
      new Map([
        [platformEndpoint.id, platformFacts],
        [advertiserEndpoint.id, advertiserFacts],
      ]),
    );

    expectSigned(platformHooks.received, platformEndpoint.secret);
    expectSigned(advertiserHooks.received, advertiserEndpoint.secret);
    // The late event did not make task 1 news again; its completion is the first one announced.
    const firstTask = platformHooks.received.filter(
      (r) => r.json.type === 'task.completed' && r.json.data.task_id === chain.taskIds[0],
    );
    expect(new Set(firstTask.map((r) => r.json.data.platform_user_id))).toEqual(new Set(users));
    for (const request of platformHooks.received) expect(users).toContain(request.json.data.platform_user_id);
    for (const request of advertiserHooks.received) {
      expect(request.json.data).not.toHaveProperty('platform_user_id');
      expect(request.json.data.advertiser_user_id).toMatch(new RegExp(`^adv-pu-${tag}-\\d+$`));
      for (const user of users) expect(request.body.replace(`adv-${user}`, '')).not.toContain(`"${user}"`);
      expect(request.json.data.quest_chain_id).toBe(chain.id);
    }
  }, 120_000);
});

describe('delivery log, retries and replay', () => {
  it('a receiver answering 500 twice then 200 gets the same message id three times, the log shows three attempts, a replay sends it once more', async () => {
    const platform: Provider = await stack.createProvider('platform');
    const hooks = await receiver();
    hooks.answer = ({ seen }) => (seen < 2 ? 500 : 200);
    const endpoint = await createEndpoint(stack, platform, hooks);
    const chain = await createChain(stack, platform, await stack.createProvider('advertiser'), ['single']);
    await registerUser(stack, platform, 'retry-user');
    await sendBatch(stack, platform, [
      { user_id: 'retry-user', event_type: 'single', timestamp: new Date(Date.now() - 60_000).toISOString() },
    ]);

    const taskMessages = () => hooks.received.filter((r) => r.json.type === 'task.completed');
    await eventually(async () => (taskMessages().length >= 3 ? true : undefined), { what: 'three deliveries of task.completed' });
    await sleep(500);
    expect(taskMessages().map((r) => r.answered)).toEqual([500, 500, 200]);
    const [messageId] = new Set(taskMessages().map((r) => r.json.id));
    expect(new Set(taskMessages().map((r) => r.json.id)).size).toBe(1);
    expect(new Set(taskMessages().map((r) => r.body)).size).toBe(1); // same body each time; only the signature's timestamp moves
    expectSigned(hooks.received, endpoint.secret);

    const log = async () =>
      (await stack.call('GET', `/v1/webhook-endpoints/${endpoint.id}/messages`, { headers: platform.headers })).json.data;
    const logged = (await eventually(
      async () => {
        const entry = (await log()).messages.find((m: { id: string }) => m.id === messageId);
        return entry?.status === 'delivered' ? entry : undefined;
      },
      { what: 'delivered in the log' },
    )) as { attempts: { status_code: number | null; error: string | null; duration_ms: number; at: string }[] };
    expect(logged.attempts.map((a) => a.status_code)).toEqual([500, 500, 200]);
    expect(logged.attempts.map((a) => a.error)).toEqual(['HTTP 500', 'HTTP 500', null]);
    for (const attempt of logged.attempts) expect(attempt.duration_ms).toBeGreaterThanOrEqual(0);
    const delivered = await stack.call('GET', `/v1/webhook-endpoints/${endpoint.id}/messages?status=delivered`, {
      headers: platform.headers,
    });
    expect(delivered.json.data.messages.map((m: { id: string }) => m.id)).toContain(messageId);

    const replay = await stack.call('POST', `/v1/webhook-endpoints/${endpoint.id}/messages/${messageId}/replay`, {
      headers: platform.headers,
    });
    expect(replay.status, JSON.stringify(replay.json)).toBe(200);
    expect(replay.json.data).toEqual({ id: messageId, queued: true });
    await eventually(async () => (taskMessages().length === 4 ? true : undefined), { what: 'the replay' });
    expect(taskMessages()[3]!.json.id).toBe(messageId);
    expectSigned(hooks.received, endpoint.secret);
    await eventually(
      async () =>
        (await log()).messages.find((m: { id: string }) => m.id === messageId).attempts.length === 4 ? true : undefined,
      { what: 'the replay logged' },
    );

    // A claim is announced once, however often it is asked for.
    const claim = () =>
      stack.call('POST', '/v1/rewards/claim', {
        headers: platform.headers,
        body: { platform_user_id: 'retry-user', task_id: chain.taskIds[0] },
      });
    const [first, again] = [await claim(), await claim()];
    expect([first.json.data.already_claimed, again.json.data.already_claimed]).toEqual([false, true]);
    const claims = () => hooks.received.filter((r) => r.json.type === 'reward.claimed' && r.answered === 200);
    await eventually(async () => (claims().length > 0 ? true : undefined), { what: 'reward.claimed delivered' });
    await sleep(1000);
    expect(new Set(hooks.received.filter((r) => r.json.type === 'reward.claimed').map((r) => r.json.id)).size).toBe(1);
    expect(claims()[0]!.json.data).toMatchObject({
      claim_id: first.json.data.claim_id,
      kind: 'task',
      task_id: chain.taskIds[0],
      quest_chain_id: chain.id,
      platform_user_id: 'retry-user',
    });
  }, 60_000);

  it('a deleted endpoint gets nothing more: neither the retries of its messages nor new facts', async () => {
    const platform: Provider = await stack.createProvider('platform');
    const hooks = await receiver();
    hooks.answer = () => 503;
    const endpoint = await createEndpoint(stack, platform, hooks);
    await createChain(stack, platform, await stack.createProvider('advertiser'), ['d1', 'd2']);
    await registerUser(stack, platform, 'deleted-user');
    await sendBatch(stack, platform, [
      { user_id: 'deleted-user', event_type: 'd1', timestamp: new Date(Date.now() - 60_000).toISOString() },
    ]);
    await eventually(async () => (hooks.received.length >= 2 ? true : undefined), { what: 'a first attempt and a retry' });

    const deleted = await stack.call('DELETE', `/v1/webhook-endpoints/${endpoint.id}`, { headers: platform.headers });
    expect(deleted.json.data).toEqual({ id: endpoint.id, deleted: true });
    await sleep(300); // an attempt already on the wire may still land
    const count = hooks.received.length;
    await sendBatch(stack, platform, [
      { user_id: 'deleted-user', event_type: 'd2', timestamp: new Date(Date.now() - 30_000).toISOString() },
    ]);
    // The schedule (scale 0.001) would have retried several times in this long.
    await sleep(4000);
    expect(hooks.received.length).toBe(count);
    const [row] = await stack.database.db
      .select({ status: webhookMessages.status })
      .from(webhookMessages)
      .where(eq(webhookMessages.endpointId, endpoint.id));
    expect(row?.status).toBe('failed');
    expect((await stack.call('GET', `/v1/webhook-endpoints/${endpoint.id}/messages`, { headers: platform.headers })).status).toBe(
      404,
    );
  }, 60_000);
});

describe('secrets', () => {
  it('no process output carries a signing secret or an endpoint URL (the tests above ran at debug level)', async () => {
    const endpoints = await stack.database.db
      .select({ secret: webhookEndpoints.secret, url: webhookEndpoints.url })
      .from(webhookEndpoints);
    expect(endpoints.length).toBeGreaterThan(0);
    const output = [stack.api, ...stack.workers].flatMap((process) => process.lines()).join('\n');
    expect(output).toContain('webhook attempt');
    for (const { secret, url } of endpoints) {
      expect(output).not.toContain(secret.slice('whsec_'.length, 'whsec_'.length + 16));
      expect(output).not.toContain(url);
    }
  });
});
