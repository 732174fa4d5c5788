import { afterAll, describe, expect, it } from 'vitest';
import { createQuestChainClient, QuestChainApiError, type RetryInfo, type RetryOptions } from './index.js';
import { parseRetryAfter } from './retry.js';
import { type ScriptedAnswer, scriptedServer } from './scripted-server.test-helper.js';

// The client's own backoff stays in milliseconds here, so a wait of a second can only be the server's Retry-After.
const fastRetry: RetryOptions = { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 5000 };
const servers: ReturnType<typeof scriptedServer>[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

async function clientFor(answerFor: (hit: number) => ScriptedAnswer, retry: RetryOptions = fastRetry) {
  const scripted = scriptedServer(answerFor);
  servers.push(scripted);
  const baseUrl = await scripted.start();
  const retries: RetryInfo[] = [];
  const client = createQuestChainClient({
    baseUrl,
    apiKey: 'key-1',
    apiSecret: 'sk_test_secret',
    retry: { ...retry, onRetry: (info) => retries.push(info) },
  });
  return { client, scripted, retries };
}

const register = (
  client: ReturnType<typeof createQuestChainClient>,
  call?: Parameters<ReturnType<typeof createQuestChainClient>['registerUser']>[1],
) => client.registerUser({ platform_user_id: 'u' }, call).catch((caught: unknown) => caught);

describe('Retry-After', () => {
  it.each([429, 503])('waits the seconds a %i asks for, then retries', async (status) => {
    const { client, scripted, retries } = await clientFor((hit) =>
      hit === 1 ? { status, headers: { 'retry-after': '1' } } : 200,
    );
    expect(await register(client)).toMatchObject({ platform_user_id: 'u' });
    expect(scripted.received).toHaveLength(2);
    expect(retries).toEqual([{ attempt: 1, delayMs: 1000, status, retryAfter: true }]);
    // A lower bound only (a loaded machine makes it longer, never shorter): the backoff alone would be under 20 ms.
    expect(scripted.arrivals[1]! - scripted.arrivals[0]!).toBeGreaterThanOrEqual(950);
  });

  it('reads the HTTP-date form', async () => {
    const { client, retries } = await clientFor((hit) =>
      hit === 1 ? { status: 503, headers: { 'retry-after': new Date(Date.now() + 2000).toUTCString() } } : 200,
    );
    await register(client);
    // An HTTP date has whole seconds: between 1 and 2 s from now.
    expect(retries[0]!.delayMs).toBeGreaterThan(0);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(2000);
    expect(retries[0]!.retryAfter).toBe(true);
  });

  it('does not wait out a Retry-After beyond maxRetryAfterMs: the error says when to come back', async () => {
    const { client, scripted, retries } = await clientFor(() => ({ status: 429, headers: { 'retry-after': '120' } }));
    const error = await register(client);
    expect(error).toBeInstanceOf(QuestChainApiError);
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 120_000 });
    expect(scripted.received).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it('retries a 429 without Retry-After on its own backoff, and reports it after the last attempt', async () => {
    const { client, scripted, retries } = await clientFor(() => 429);
    const error = await register(client);
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: undefined });
    expect(scripted.received).toHaveLength(3);
    expect(retries.every((retry) => retry.delayMs < 20 && retry.retryAfter === undefined)).toBe(true);
  });

  it.each([
    ['7', 7000],
    [' 0 ', 0],
    ['soon', undefined],
    ['-3', undefined],
    [null, undefined],
    ['Wed, 21 Oct 2015 07:28:00 GMT', 0],
  ])('parseRetryAfter(%j) is %j', (value, expected) => {
    expect(parseRetryAfter(value, Date.parse('2026-01-01T00:00:00Z'))).toBe(expected);
  });
});

describe('AbortSignal and the per-call timeout', () => {
  it('rejects with the caller’s abort reason while the request is in flight, without retrying', async () => {
    const { client, scripted, retries } = await clientFor(() => 'hang');
    const controller = new AbortController();
    const pending = register(client, { signal: controller.signal });
    await waitFor(() => scripted.received.length === 1);
    controller.abort();
    const error = await pending;
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(scripted.received).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it('rejects during a Retry-After wait when aborted, without sending again', async () => {
    const { client, scripted } = await clientFor(() => ({ status: 503, headers: { 'retry-after': '20' } }));
    const controller = new AbortController();
    const pending = register(client, { signal: controller.signal });
    await waitFor(() => scripted.received.length === 1);
    controller.abort();
    expect(await pending).toMatchObject({ name: 'AbortError' });
    expect(scripted.received).toHaveLength(1);
  });

  it('ends the whole call with a TimeoutError when timeoutMs passes, retries and waits included', async () => {
    // Each attempt may take 5 s and the server asks for 20 s between them: only the call's own limit can end it early.
    const { client, scripted } = await clientFor(() => ({ status: 503, headers: { 'retry-after': '20' } }));
    const error = await register(client, { timeoutMs: 300 });
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(scripted.received).toHaveLength(1);
  });

  it('an already aborted signal sends nothing', async () => {
    const { client, scripted } = await clientFor(() => 200);
    expect(await register(client, { signal: AbortSignal.abort() })).toMatchObject({ name: 'AbortError' });
    expect(scripted.received).toHaveLength(0);
  });
});

async function waitFor(condition: () => boolean) {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
