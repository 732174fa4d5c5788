import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookMessages } from '../shared/db/schema/index.js';
import { eventually } from '../shared/testing/eventually.js';
import { startWebhookReceiver, type WebhookReceiver } from '../shared/testing/webhook-receiver.js';
import { type Stack, startStack } from './harness/stack.js';
import {
  createChain,
  createEndpoint,
  expectSigned,
  idsByFact,
  type Provider,
  registerUser,
  sendBatch,
  sleep,
} from './support/webhook-world.js';

// WORKER_ROLES (docs/scaling.md, "Webhook delivery"): a worker started with `matching` writes the
// outbox and queues first attempts but sends nothing; a process started with `webhooks` delivers
// them, each once, signed, without matching anything itself.

let stack: Stack;
let hooks: WebhookReceiver;
beforeAll(async () => {
  stack = await startStack('webhook_roles', {
    env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WORKER_ROLES: 'matching' },
  });
  hooks = await startWebhookReceiver();
}, 60_000);
afterAll(async () => {
  await hooks?.stop();
  await stack?.stop();
});

describe('delivery in a process of its own', () => {
  it('a matching-only worker leaves its messages pending; a webhooks-only worker delivers them once', async () => {
    const platform: Provider = await stack.createProvider('platform');
    const endpoint = await createEndpoint(stack, platform, hooks);
    const chain = await createChain(stack, platform, await stack.createProvider('advertiser'), ['ra', 'rb']);
    const users = ['roles-1', 'roles-2', 'roles-3'];
    for (const user of users) await registerUser(stack, platform, user);
    const at = Date.now() - 60_000;
    await sendBatch(
      stack,
      platform,
      users.flatMap((user) => [
        { user_id: user, event_type: 'ra', timestamp: new Date(at).toISOString() },
        { user_id: user, event_type: 'rb', timestamp: new Date(at + 1000).toISOString() },
      ]),
    );
    // Two tasks and the chain for each user: matched and written to the outbox...
    const facts = users.length * 3;
    const pending = () => stack.database.db.$count(webhookMessages, eq(webhookMessages.endpointId, endpoint.id));
    await eventually(async () => ((await pending()) === facts ? true : undefined), {
      what: 'the outbox written by the matching-only worker',
    });
    // ... and not sent: past the sweeper's interval and minimum age too.
    await sleep(1500);
    expect(hooks.received).toHaveLength(0);

    await stack.startWorker({ WORKER_ROLES: 'webhooks' });
    await eventually(async () => (idsByFact(hooks.received).size === facts ? true : undefined), {
      timeoutMs: 30_000,
      what: 'every fact delivered by the webhooks-only worker',
    });
    await sleep(1000);
    for (const [fact, ids] of idsByFact(hooks.received)) expect(ids.size, fact).toBe(1);
    expectSigned(hooks.received, endpoint.secret);
    expect(new Set(hooks.received.map((r) => r.json.data.quest_chain_id))).toEqual(new Set([chain.id]));
  }, 90_000);
});
