import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import { chainBody } from '../../api/testing/chains.js';
import { adminHeaders } from '../../shared/testing/admin-token.js';
import type { ReceivedWebhook, WebhookReceiver } from '../../shared/testing/webhook-receiver.js';
import type { Stack } from '../harness/stack.js';

// What the webhook end-to-end tests share: providers with endpoints, users, chains, events over
// the real API, and the checks every delivery must pass.

export type Provider = { id: string; headers: Record<string, string> };

export async function createEndpoint(stack: Stack, provider: Provider, receiver: WebhookReceiver) {
  const answer = await stack.call('POST', '/v1/webhook-endpoints', { headers: provider.headers, body: { url: receiver.url } });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return answer.json.data as { id: string; secret: string };
}

export async function createChain(stack: Stack, platform: Provider, advertiser: Provider, events: string[]) {
  const answer = await stack.call('POST', '/admin/v1/quest-chains', {
    headers: adminHeaders,
    body: chainBody(platform.id, advertiser.id, { tasks: events.map((event) => ({ event })) }),
  });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return {
    id: answer.json.data.quest_chain.id as string,
    taskIds: (answer.json.data.tasks as { id: string }[]).map((t) => t.id),
  };
}

export async function registerUser(stack: Stack, platform: Provider, platformUserId: string) {
  const answer = await stack.call('POST', '/v1/users/register', {
    headers: platform.headers,
    body: { platform_user_id: platformUserId },
  });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
}

export async function linkUser(
  stack: Stack,
  platform: Provider,
  advertiser: Provider,
  platformUserId: string,
  advertiserUserId: string,
) {
  const started = await stack.call('POST', '/v1/account-links', {
    headers: platform.headers,
    body: { platform_user_id: platformUserId, advertiser_id: advertiser.id },
  });
  expect(started.status, JSON.stringify(started.json)).toBe(200);
  const done = await stack.call('POST', '/v1/account-links/complete', {
    headers: advertiser.headers,
    body: { connection_token: started.json.data.connection_token, advertiser_user_id: advertiserUserId },
  });
  expect(done.status, JSON.stringify(done.json)).toBe(200);
}

export async function sendBatch(stack: Stack, provider: Provider, events: object[]) {
  const answer = await stack.call('POST', '/v1/events/batch', { headers: provider.headers, body: { events } });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
}

/** Every request verifies with the Standard Webhooks verifier under the endpoint's secret; the body id is the webhook-id header. */
export function expectSigned(received: readonly ReceivedWebhook[], secret: string) {
  const verifier = new Webhook(secret);
  for (const request of received) {
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    expect(verifier.verify(request.body, headers)).toEqual(request.json);
    expect(request.json.id).toBe(headers['webhook-id']);
    expect(request.json.id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(request.headers['content-type']).toBe('application/json');
  }
}

/** The fact a message announces, in the recipient's terms. */
function factOf(request: ReceivedWebhook): string {
  const { type, data } = request.json;
  const user = String(data.platform_user_id ?? data.advertiser_user_id);
  if (type === 'task.completed') return `${type}/${user}/${String(data.task_id)}`;
  if (type === 'chain.completed') return `${type}/${user}/${String(data.quest_chain_id)}`;
  return `${type}/${String(data.claim_id)}`;
}

/** fact -> the distinct message ids that announced it. */
export function idsByFact(received: readonly ReceivedWebhook[]): Map<string, Set<string>> {
  const facts = new Map<string, Set<string>>();
  for (const request of received) {
    const fact = factOf(request);
    const ids = facts.get(fact) ?? new Set<string>();
    ids.add(request.json.id);
    facts.set(fact, ids);
  }
  return facts;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
