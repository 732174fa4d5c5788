import { afterAll, beforeAll, expect, it } from 'vitest';
import { webhookAttempts } from '../shared/db/schema/index.js';
import { eventually } from '../shared/testing/eventually.js';
import { startWebhookReceiver, type WebhookReceiver } from '../shared/testing/webhook-receiver.js';
import { type PrivateRedis, startPrivateRedis } from './harness/redis-server.js';
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

// §10 "Nothing is lost: a crash or a Redis outage delays delivery, never drops it." The receiver is
// down while Redis is killed and comes back empty (every queued and delayed job gone); once both
// are back, the sweeper finds the pending messages in Postgres and every one is delivered.
// Retries are shrunk a hundredfold: the first after ~50 ms, the fifth after ~13 s, so the
// messages are still pending (not failed) when the receiver returns.

let stack: Stack;
let redis: PrivateRedis;
let hooks: WebhookReceiver;
beforeAll(async () => {
  redis = await startPrivateRedis();
  stack = await startStack('webhooks_redis_restart', {
    env: { REDIS_URL: redis.url, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCALE: '0.01' },
  });
  hooks = await startWebhookReceiver();
}, 60_000);
afterAll(async () => {
  await hooks?.stop();
  await stack?.stop();
  await redis?.destroy();
});

it('a receiver down during a Redis restart still gets every message afterwards', async () => {
  const platform: Provider = await stack.createProvider('platform');
  const endpoint = await createEndpoint(stack, platform, hooks);
  await createChain(stack, platform, await stack.createProvider('advertiser'), ['r1', 'r2']);
  const users = Array.from({ length: 10 }, (_, i) => `redis-user-${i}`);
  for (const user of users) await registerUser(stack, platform, user);
  await sleep(1500);

  await hooks.stop();
  const base = Date.now() - 600_000;
  await sendBatch(
    stack,
    platform,
    users.flatMap((user) => [
      { user_id: user, event_type: 'r1', timestamp: new Date(base).toISOString() },
      { user_id: user, event_type: 'r2', timestamp: new Date(base + 1000).toISOString() },
    ]),
  );
  // Attempts fail (connection refused) and retries wait in Redis as delayed jobs...
  await eventually(
    async () => ((await stack.database.db.select().from(webhookAttempts)).length >= users.length * 3 ? true : undefined),
    {
      timeoutMs: 30_000,
      what: 'failed attempts recorded',
    },
  );
  // ...until Redis dies with them and comes back empty.
  await redis.stop();
  await sleep(1000);
  await redis.restart();
  await hooks.start();

  const facts = users.length * 3; // two task completions and one chain completion each
  await eventually(async () => (idsByFact(hooks.received).size === facts ? true : undefined), {
    timeoutMs: 60_000,
    what: 'every message delivered after the restart',
  });
  for (const [fact, ids] of idsByFact(hooks.received)) expect(ids.size, fact).toBe(1);
  expectSigned(hooks.received, endpoint.secret);
}, 120_000);
