import { inspect } from 'node:util';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainOverApi } from '../api/testing/chains.js';
import { useTestService } from '../api/testing/test-service.js';
import { createQuestChainClient, QuestChainApiError, QuestChainNetworkError } from './index.js';
import { backoffDelay } from './retry.js';
import { scriptedServer } from './scripted-server.test-helper.js';

const SECRET = 'sk_test_very-secret-value-0123456789';
const fastRetry = { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 2000 };

describe('against the real service', () => {
  const { api, platform, advertiser } = useTestService('client');
  let server: ServerType;
  let baseUrl: string;

  beforeAll(async () => {
    await createChainOverApi(api, platform.id, advertiser.id, {
      name: 'Client chain',
      start: new Date(Date.now() - 3600_000).toISOString(),
      end: new Date(Date.now() + 86_400_000).toISOString(),
      tasks: [{ event: 'registration' }],
      reward: false,
    });
    await new Promise<void>((resolve) => {
      server = serve({ fetch: api.app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
        baseUrl = `http://127.0.0.1:${info.port}`;
        resolve();
      });
    });
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('registers a user, sends events and reads the active chains', async () => {
    const client = createQuestChainClient({ baseUrl, apiKey: platform.key, apiSecret: platform.secret, retry: fastRetry });
    const user = await client.registerUser({ platform_user_id: 'sdk-user', country_code: 'NL' });
    expect(user).toMatchObject({ platform_user_id: 'sdk-user', already_exists: false });

    const event = { user_id: 'sdk-user', event_type: 'registration', timestamp: new Date().toISOString() };
    expect(await client.sendEvent(event)).toMatchObject({ status: 'received', event_type: 'registration' });
    expect((await client.sendEvent(event)).status).toBe('duplicate');
    const batch = await client.sendEvents([event, { ...event, event_type: 'kyc' }]);
    expect(batch.results.map((result) => result.status)).toEqual(['duplicate', 'received']);
    const kyc = batch.results[1]!;
    const reversed = await client.reverseEvent('event_id' in kyc ? kyc.event_id : '', { reason: 'refund' });
    expect(reversed).toMatchObject({ already_reversed: false, reason: 'refund' });
    const again = await client.reverseEvents([{ event_id: reversed.event_id }]);
    expect(again.results).toMatchObject([{ status: 'reversed', already_reversed: true }]);

    const active = await client.getActiveQuestChains('sdk-user');
    expect(active.user.exists).toBe(true);
    expect(active.quest_chains.map((entry) => entry.quest_chain.name)).toEqual(['Client chain']);
  });

  it("reads a user's points and refuses a spend the balance does not cover", async () => {
    const client = createQuestChainClient({ baseUrl, apiKey: platform.key, apiSecret: platform.secret, retry: fastRetry });
    await client.registerUser({ platform_user_id: 'sdk-points' });
    expect(await client.getPoints('sdk-points', { limit: 5 })).toEqual({
      balance: 0,
      earned: 0,
      spent: 0,
      reversed: 0,
      entries: [],
      has_more: false,
      next_cursor: null,
    });
    const refused = await client
      .spendPoints('sdk-points', { amount: 10, idempotency_key: 'order-1' })
      .catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(QuestChainApiError);
    expect(refused).toMatchObject({ status: 409, code: 'insufficient_points', retryable: false, balance: 0 });
    const invalid = await client
      .spendPoints('sdk-points', { amount: 0, idempotency_key: 'order-2' })
      .catch((caught: unknown) => caught);
    expect(invalid).toMatchObject({ status: 400, param: 'amount' });
    expect((invalid as QuestChainApiError).balance).toBeUndefined();
  });

  it('lists the leaderboards and reads one', async () => {
    const created = await api.call('POST', '/admin/v1/leaderboards', {
      headers: api.adminHeaders,
      body: { platform_id: platform.id, name: 'SDK board', metric: 'points', start_date: new Date().toISOString() },
    });
    const client = createQuestChainClient({ baseUrl, apiKey: platform.key, apiSecret: platform.secret, retry: fastRetry });
    const { leaderboards } = await client.listLeaderboards();
    expect(leaderboards.map((board) => board.name)).toEqual(['SDK board']);
    const standings = await client.getLeaderboard(created.json.data.id, { around: 'sdk-user', limit: 5 });
    expect(standings).toMatchObject({ leaderboard: { name: 'SDK board', metric: 'points' }, entries: [], user: null });
  });

  it('throws the envelope of a 4xx as QuestChainApiError, without the secret', async () => {
    const wrong = createQuestChainClient({ baseUrl, apiKey: platform.key, apiSecret: SECRET, retry: fastRetry });
    const error = await wrong.registerUser({ platform_user_id: 'x' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(QuestChainApiError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_credentials', retryable: false });
    expect((error as QuestChainApiError).requestId).toBeTruthy();
    expect(String(error)).not.toContain(SECRET);

    const client = createQuestChainClient({ baseUrl, apiKey: platform.key, apiSecret: platform.secret, retry: fastRetry });
    const invalid = await client
      .sendEvent({ user_id: 'sdk-user', event_type: 'x', timestamp: 'not a time' })
      .catch((caught: unknown) => caught);
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_field' });
    expect((invalid as Error).message).toContain('timestamp');
  });
});

describe('retry rules', () => {
  const servers: ReturnType<typeof scriptedServer>[] = [];
  async function clientFor(statusFor: (hit: number) => number, retry = fastRetry) {
    const scripted = scriptedServer(statusFor);
    servers.push(scripted);
    const baseUrl = await scripted.start();
    const retries: { attempt: number; status?: number; error?: string }[] = [];
    const client = createQuestChainClient({
      baseUrl,
      apiKey: 'key-1',
      apiSecret: SECRET,
      retry: { ...retry, onRetry: (info) => retries.push(info) },
    });
    return { client, scripted, retries };
  }
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  it('retries 500 twice then succeeds on the third attempt, resending the same body and headers', async () => {
    const { client, scripted, retries } = await clientFor((hit) => (hit <= 2 ? 500 : 200));
    const user = await client.registerUser({ platform_user_id: 'u' });
    expect(user.platform_user_id).toBe('u');
    expect(scripted.received).toHaveLength(3);
    expect(new Set(scripted.bodies)).toEqual(new Set([JSON.stringify({ platform_user_id: 'u' })]));
    expect(
      scripted.received.every(
        (request) => request.headers['x-api-secret'] === SECRET && request.headers['x-api-key'] === 'key-1',
      ),
    ).toBe(true);
    expect(retries.map((retry) => retry.status)).toEqual([500, 500]);
  });

  it('gives up after maxAttempts on a 500 that does not go away', async () => {
    const { client, scripted } = await clientFor(() => 500, { ...fastRetry, maxAttempts: 4 });
    const error = await client.registerUser({ platform_user_id: 'u' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(QuestChainApiError);
    expect(error).toMatchObject({ status: 500, code: 'internal', retryable: true, requestId: 'req-4' });
    expect(scripted.received).toHaveLength(4);
  });

  it.each([400, 401, 403, 409])('never retries %i', async (status) => {
    const { client, scripted, retries } = await clientFor(() => status);
    const error = await client.registerUser({ platform_user_id: 'u' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status });
    expect(scripted.received).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it('retries a refused connection, then fails with a network error that hides the secret', async () => {
    const scripted = scriptedServer(() => 200);
    const closedUrl = await scripted.start();
    await scripted.stop(); // nothing listens on this port any more
    const retries: unknown[] = [];
    const client = createQuestChainClient({
      baseUrl: closedUrl,
      apiKey: 'key-1',
      apiSecret: SECRET,
      retry: { ...fastRetry, onRetry: (info) => retries.push(info) },
    });
    const error = await client
      .sendEvent({ user_id: 'u', event_type: 'x', timestamp: '2026-01-01T00:00:00Z' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(QuestChainNetworkError);
    expect(error).toMatchObject({ attempts: 3 });
    expect((error as Error).message).toMatch(/POST \/v1\/events failed after 3 attempt/);
    expect(retries).toHaveLength(2);
    expect(inspect(error, { depth: 5 })).not.toContain(SECRET);
    expect(JSON.stringify(retries)).not.toContain(SECRET);
  });

  it('does not show the secret when the client is printed', async () => {
    const { client } = await clientFor(() => 200);
    expect(String(client)).toContain('key-1');
    for (const printed of [String(client), inspect(client, { depth: 10, showHidden: true }), JSON.stringify(client)]) {
      expect(printed).not.toContain(SECRET);
    }
  });
});

describe('backoffDelay', () => {
  it('draws below a ceiling that doubles per retry and stops at the cap', () => {
    expect([1, 2, 3, 4, 5].map((retry) => backoffDelay(retry, 100, 1000, () => 0.999))).toEqual([99, 199, 399, 799, 999]);
    expect(backoffDelay(3, 100, 1000, () => 0)).toBe(0);
  });
});
