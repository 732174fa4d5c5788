import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookMessages } from '../shared/db/schema/index.js';
import { eventually } from '../shared/testing/eventually.js';
import { isPending } from '../shared/testing/progress.js';
import { startWebhookReceiver, type WebhookReceiver } from '../shared/testing/webhook-receiver.js';
import { type Stack, startStack } from './harness/stack.js';
import { createChain, createEndpoint, registerUser } from './support/webhook-world.js';

// A webhook endpoint receives every fact that happens after its creation is
// answered. The matcher once kept a per-worker set of the providers with
// endpoints, refreshed every second, and skipped the outbox for the others:
// an event sent right after creating an endpoint was matched, and its
// task.completed never written. Now the batch reads the endpoints in its own
// transaction, after its events (core/matching/match-batch.ts, providersListening).

const ROUNDS = 20;
let stack: Stack;
let receiver: WebhookReceiver;
beforeAll(async () => {
  stack = await startStack('webhook_new_endpoint', { env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' } });
  receiver = await startWebhookReceiver();
}, 60_000);
afterAll(async () => {
  await receiver?.stop();
  await stack?.stop();
});

const messagesOf = async (endpointId: string) =>
  (
    await stack.database.db
      .select({ n: count() })
      .from(webhookMessages)
      .where(and(eq(webhookMessages.endpointId, endpointId), eq(webhookMessages.type, 'task.completed')))
  )[0]!.n;

describe('an endpoint created just before an event', () => {
  it(`announces the event's completion, in each of ${ROUNDS} rounds with no pause between the creation and the event`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      // A platform with a chain and a user, and no endpoint yet: the worker has seen it without one.
      const platform = await stack.createProvider('platform');
      const advertiser = await stack.createProvider('advertiser');
      await createChain(stack, platform, advertiser, ['ping']);
      await registerUser(stack, platform, 'player');

      const endpoint = await createEndpoint(stack, platform, receiver);
      const sent = await stack.call('POST', '/v1/events', {
        headers: platform.headers,
        body: { user_id: 'player', event_type: 'ping', timestamp: new Date(Date.now() - 60_000).toISOString() },
      });
      expect(sent.status, JSON.stringify(sent.json)).toBe(200);
      const eventId = sent.json.data.event_id as string;

      // Once the event is matched, its fact is in the outbox (same transaction) or it never will be.
      await eventually(async () => ((await isPending(stack.database.db, eventId)) ? undefined : true), {
        timeoutMs: 20_000,
        what: `round ${round}: the event to be matched`,
      });
      expect(await messagesOf(endpoint.id), `round ${round}: task.completed written for the new endpoint`).toBe(1);
    }
  }, 240_000);
});
