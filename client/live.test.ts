import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestService } from '../api/testing/test-service.js';
import { users } from '../shared/db/schema/index.js';
import { serviceUserId } from '../shared/domain/ids.js';
import { parseUtcTimestamp } from '../shared/domain/timestamp.js';
import { progressChannel } from '../shared/live/channel.js';
import { type LiveProgress, type LiveReady, type LiveStreamError, type LiveUpdates, openLiveUpdates } from './live.js';
import { type SseMessage, SseParser } from './sse.js';

describe('SseParser', () => {
  const parse = (chunks: string[]) => {
    const messages: SseMessage[] = [];
    const parser = new SseParser((message) => messages.push(message));
    for (const chunk of chunks) parser.push(chunk);
    return { messages, parser };
  };

  it('reads events split anywhere, with CRLF, CR or LF line ends', () => {
    const text = 'event: ready\r\ndata: {"a":1}\r\n\r\n: keep-alive\n\nevent: progress\rid: t1\rdata: x\rdata: y\r\r';
    for (const size of [1, 2, 3, 7, text.length]) {
      const chunks = text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g'))!;
      expect(parse(chunks).messages, `chunks of ${size}`).toEqual([
        { event: 'ready', data: '{"a":1}', id: undefined },
        { event: 'progress', data: 'x\ny', id: 't1' },
      ]);
    }
  });

  it('keeps the last id across messages, skips data-less ones, and reads retry', () => {
    const { messages, parser } = parse(['id: 5\nevent: ping\n\ndata:no space\n\nretry: 1500\nretry: soon\n\n']);
    expect(messages).toEqual([{ event: 'message', data: 'no space', id: '5' }]);
    expect(parser.retryMs).toBe(1500);
  });
});

describe('openLiveUpdates against the real service (fetch transport)', () => {
  const { database, api, platform } = useTestService('sdk_live');
  let server: ServerType;
  let baseUrl: string;
  const open: LiveUpdates[] = [];

  beforeAll(async () => {
    await new Promise<void>((resolve) => {
      server = serve({ fetch: api.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
        baseUrl = `http://127.0.0.1:${info.port}`;
        resolve();
      });
    });
  });
  afterAll(async () => {
    for (const live of open) live.close();
    await new Promise((resolve) => {
      server.close(resolve);
      (server as unknown as { closeAllConnections(): void }).closeAllConnections();
    });
  });

  async function register(platformUserId: string): Promise<string> {
    const answer = await api.call('POST', '/v1/users/register', {
      headers: platform.headers,
      body: { platform_user_id: platformUserId },
    });
    return answer.json.data.user_id as string;
  }

  const setChangedAt = (userId: string, iso: string) =>
    database.db
      .update(users)
      .set({ progressChangedAt: parseUtcTimestamp(iso)! })
      .where(eq(users.id, serviceUserId(userId)));

  function follow(platformUserId: string, baselineTimestamp: string | null) {
    const seen = { ready: [] as LiveReady[], progress: [] as LiveProgress[], errors: [] as LiveStreamError[] };
    const token = api.deps.liveTokens.issue({ platformId: platform.id, platformUserId, livemode: true });
    const live = openLiveUpdates(
      baseUrl,
      { token, baselineTimestamp },
      {
        EventSource: false,
        reconnectDelayMs: 50,
        onReady: (ready) => seen.ready.push(ready),
        onProgress: (progress) => seen.progress.push(progress),
        onError: (error) => seen.errors.push(error),
      },
    );
    open.push(live);
    return { live, seen };
  }

  it('reports ready, then the progress the worker publishes', async () => {
    const userId = await register('live-1');
    const { live, seen } = follow('live-1', null);
    expect(live.transport).toBe('fetch');
    await until(() => expect(seen.ready).toEqual([{ user_exists: true, livemode: true }]));
    const message = { quest_chain_ids: ['c-1'], changed_at: '2026-01-02T03:04:05.678Z' };
    await api.deps.redis.publish(progressChannel(api.config.QUEUE_PREFIX, userId), JSON.stringify(message));
    await until(() => expect(seen.progress).toEqual([message]));
  });

  it('resumes from baselineTimestamp: a change after it is reported at once, one at it is not', async () => {
    const userId = await register('live-2');
    await setChangedAt(userId, '2026-03-01T10:00:00.250Z');
    const behind = follow('live-2', '2026-03-01T10:00:00.249Z');
    await until(() => expect(behind.seen.progress.map((p) => p.changed_at)).toEqual(['2026-03-01T10:00:00.250Z']));
    const current = follow('live-2', '2026-03-01T10:00:00.250Z');
    await until(() => expect(current.seen.ready).toHaveLength(1));
    // The catch-up would follow `ready` on the same connection: the first stream got it by then.
    await until(() => expect(behind.seen.ready).toHaveLength(1));
    expect(current.seen.progress).toEqual([]);
  });

  it('reconnects after a dropped connection and resumes from the last progress seen', async () => {
    const userId = await register('live-3');
    await setChangedAt(userId, '2026-04-01T00:00:00.000Z');
    const { seen } = follow('live-3', '2026-03-31T00:00:00.000Z');
    await until(() => expect(seen.progress.map((p) => p.changed_at)).toEqual(['2026-04-01T00:00:00.000Z']));

    // Unchanged while away: the reconnect (Last-Event-ID = the last change) brings `ready` and no repeat.
    (server as unknown as { closeAllConnections(): void }).closeAllConnections();
    await until(() => expect(seen.ready.length).toBeGreaterThanOrEqual(2));
    expect(seen.progress).toHaveLength(1);

    // Changed while away: the reconnect reports it at once.
    await setChangedAt(userId, '2026-04-01T00:00:01.000Z');
    (server as unknown as { closeAllConnections(): void }).closeAllConnections();
    await until(() =>
      expect(seen.progress.map((p) => p.changed_at)).toEqual(['2026-04-01T00:00:00.000Z', '2026-04-01T00:00:01.000Z']),
    );
    expect(seen.errors).toEqual([]);
  });

  it('stops and reports a refused token once, without reconnecting', async () => {
    const seen: LiveStreamError[] = [];
    const live = openLiveUpdates(
      baseUrl,
      { token: 'not-a-token', baselineTimestamp: null },
      { EventSource: false, reconnectDelayMs: 10, onProgress: () => {}, onError: (error) => seen.push(error) },
    );
    open.push(live);
    await until(() => expect(seen.map((error) => error.status)).toEqual([401]));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toHaveLength(1);
  });

  it('close() ends the stream: the hub sees it go', async () => {
    await register('live-4');
    const { live, seen } = follow('live-4', null);
    await until(() => expect(seen.ready).toHaveLength(1));
    const before = api.deps.liveHub.size.streams;
    live.close();
    await until(() => expect(api.deps.liveHub.size.streams).toBe(before - 1));
  });
});

/** Retries the assertion until it holds (or fails after 10 s). */
const until = (assertion: () => void) => vi.waitFor(assertion, { timeout: 10_000, interval: 20 });
