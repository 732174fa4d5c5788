import { connect } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../../../shared/db/schema/index.js';
import { type ServiceUserId, senderUserId, serviceUserId } from '../../../../shared/domain/ids.js';
import { dateToMicros } from '../../../../shared/domain/timestamp.js';
import { progressChannel } from '../../../../shared/live/channel.js';
import { eventually } from '../../../../shared/testing/eventually.js';
import { createTestProvider, type TestProvider } from '../../../../shared/testing/fixtures.js';
import { storeCompletion } from '../../../../shared/testing/progress.js';
import { activeAnswer } from '../../../read-cache/active-answer.js';
import { chainBody } from '../../../testing/chains.js';
import { listen } from '../../../testing/http-server.js';
import { createTestApp, type TestApp } from '../../../testing/test-app.js';
import { useTestService } from '../../../testing/test-service.js';
import { toActiveChainsResponse } from './schema.js';

// GET active answers with an ETag that changes exactly when the answer does,
// and 304 to If-None-Match while it holds; answers are cached per user until
// a progress notice, a claim, a chain change or the clock says otherwise.

const { database, api, advertiser } = useTestService('conditional_read');
let other: TestApp;

beforeAll(async () => {
  // A second replica on the same database and queue prefix.
  other = await createTestApp(database, { QUEUE_PREFIX: api.config.QUEUE_PREFIX });
  for (const app of [api, other])
    await eventually(async () => app.deps.chainCache.answers.enabled || undefined, { what: 'answer cache following changes' });
});
afterAll(async () => {
  await other.close();
});

async function userWithChain(platformUserId = 'etag-user') {
  const platform = await createTestProvider(database.db, 'platform');
  const registered = await api.call('POST', '/v1/users/register', {
    headers: platform.headers,
    body: { platform_user_id: platformUserId },
  });
  const created = await api.call('POST', '/admin/v1/quest-chains', {
    headers: api.adminHeaders,
    body: chainBody(platform.id, advertiser.id),
  });
  expect(created.status).toBe(200);
  const chain = created.json.data as { quest_chain: { id: string }; tasks: { id: string }[] };
  return { platform, platformUserId, userId: registered.json.data.user_id as ServiceUserId, chain };
}

const read = (app: TestApp, platform: TestProvider, platformUserId: string, etag?: string) =>
  app.call('GET', `/v1/quest-chains/active/${platformUserId}`, {
    headers: { ...platform.headers, ...(etag ? { 'if-none-match': etag } : {}) },
  });

describe('ETag and If-None-Match', () => {
  it('tags the answer, repeats the tag while nothing changes, and answers 304 to it', async () => {
    const { platform, platformUserId } = await userWithChain();
    const first = await read(api, platform, platformUserId);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    expect(first.headers.get('x-request-id')).toBeTruthy();

    const again = await read(api, platform, platformUserId);
    expect(again.headers.get('etag')).toBe(etag);
    expect(api.deps.chainCache.answers.size.entries).toBeGreaterThan(0);
    expect(again.text).toBe(first.text);

    for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const revalidated = await read(api, platform, platformUserId, header);
      expect(revalidated.status, header).toBe(304);
      expect(revalidated.text).toBe('');
      expect(revalidated.headers.get('etag')).toBe(etag);
    }
    const stale = await read(api, platform, platformUserId, '"something-else"');
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(first.text);
  });

  it('changes after a progress change (the worker’s notice)', async () => {
    const { platform, platformUserId, userId, chain } = await userWithChain();
    const before = await read(api, platform, platformUserId);
    const etag = before.headers.get('etag')!;
    // What the worker does: commit the completion and the progress stamp, then publish on the user's live channel.
    await storeCompletion(database.db, {
      userId,
      providerId: platform.id,
      platformUserId,
      taskId: chain.tasks[0]!.id,
      chainId: chain.quest_chain.id,
      at: new Date().toISOString(),
    });
    await database.db
      .update(users)
      .set({ progressChangedAt: dateToMicros(new Date()) })
      .where(eq(users.id, serviceUserId(userId)));
    await api.deps.redis.publish(
      progressChannel(api.config.QUEUE_PREFIX, userId),
      JSON.stringify({ quest_chain_ids: [chain.quest_chain.id], changed_at: new Date().toISOString() }),
    );

    for (const app of [api, other]) {
      const changed = await eventually(
        async () => {
          const answer = await read(app, platform, platformUserId, etag);
          return answer.status === 200 ? answer : undefined;
        },
        { what: 'a new answer after the progress notice' },
      );
      expect(changed.headers.get('etag')).not.toBe(etag);
      expect(changed.json.data.quest_chains[0].user_progress.completed_tasks).toBe(1);
      expect(changed.json.data.liveUpdates.baselineTimestamp).not.toBeNull();
      expect((await read(app, platform, platformUserId, changed.headers.get('etag')!)).status).toBe(304);
    }
  });

  it('changes after a claim, on the replica that granted it at once and on the others', async () => {
    const { platform, platformUserId, userId, chain } = await userWithChain();
    await storeCompletion(database.db, {
      userId,
      providerId: platform.id,
      platformUserId,
      taskId: chain.tasks[0]!.id,
      chainId: chain.quest_chain.id,
      at: new Date().toISOString(),
    });
    const before = await read(api, platform, platformUserId);
    expect(before.json.data.claimable_tasks).toHaveLength(1);
    const etag = before.headers.get('etag')!;
    expect((await read(other, platform, platformUserId, etag)).status).toBe(304);

    const claim = await api.call('POST', '/v1/rewards/claim', {
      headers: platform.headers,
      body: { platform_user_id: platformUserId, task_id: chain.tasks[0]!.id },
    });
    expect(claim.status).toBe(200);
    const here = await read(api, platform, platformUserId, etag);
    expect(here.status).toBe(200);
    expect(here.json.data.claimable_tasks).toEqual([]);
    const there = await eventually(
      async () => {
        const answer = await read(other, platform, platformUserId, etag);
        return answer.status === 200 ? answer : undefined;
      },
      { what: 'the other replica to drop its answer' },
    );
    expect(there.headers.get('etag')).toBe(here.headers.get('etag'));
  });

  it('changes after a chain status change', async () => {
    const { platform, platformUserId, chain } = await userWithChain();
    const before = await read(api, platform, platformUserId);
    expect(before.json.data.quest_chains).toHaveLength(1);
    const patch = await api.call('PATCH', `/admin/v1/quest-chains/${chain.quest_chain.id}`, {
      headers: api.adminHeaders,
      body: { status: 'paused' },
    });
    expect(patch.status).toBe(200);
    const after = await read(api, platform, platformUserId, before.headers.get('etag')!);
    expect(after.status).toBe(200);
    expect(after.json.data.quest_chains).toEqual([]);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });

  it('changes when an unknown user registers', async () => {
    const platform = await createTestProvider(database.db, 'platform');
    const unknown = await read(api, platform, 'later');
    expect(unknown.json.data.user.exists).toBe(false);
    await api.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: 'later' } });
    const known = await read(api, platform, 'later', unknown.headers.get('etag')!);
    expect(known.status).toBe(200);
    expect(known.json.data.user.exists).toBe(true);
  });

  it('renews the live token once a minute in the cached answer, under the same tag', async () => {
    const { platform, platformUserId } = await userWithChain();
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    const at = (nowMs: number, ifNoneMatch?: string) =>
      activeAnswer(
        api.deps,
        { platformId: platform.id, platformUserId: senderUserId(platformUserId), livemode: true, nowMs, ifNoneMatch },
        (answer) => JSON.stringify({ success: true, data: toActiveChainsResponse(answer) }),
      );
    const early = await at(minute + 1_000);
    const late = await at(minute + 59_000);
    const entries = api.deps.chainCache.answers.size.entries;
    const next = await at(minute + 61_000);
    expect(late).toEqual(early);
    expect(next.etag).toBe(early.etag);
    expect(api.deps.chainCache.answers.size.entries).toBe(entries);
    const token = (body: Buffer | null) => JSON.parse(body!.toString()).data.liveUpdates.token as string;
    expect(token(next.body)).not.toBe(token(early.body));
    // The renewed body is the answer with only its token changed, and a fresh token of the new minute.
    expect(next.body!.toString().replace(token(next.body), '')).toBe(early.body!.toString().replace(token(early.body), ''));
    expect((await at(minute + 61_000, early.etag)).body).toBeNull();
    // Issued for the end of the minute: valid at least an hour from any moment in it.
    const expiry = (body: Buffer | null) =>
      JSON.parse(Buffer.from(token(body).split('.')[0]!, 'base64url').toString()).exp as number;
    expect(expiry(early.body)).toBe(minute + 60_000 + 60 * 60_000);
    expect(expiry(next.body)).toBe(minute + 120_000 + 60 * 60_000);
    expect(api.deps.liveTokens.verify(token(early.body), minute + 59_000 + 60 * 60_000)).not.toBeNull();
  });

  it('answers 304 on the wire with the tag, the request id and no Content-Length, and the connection goes on to a whole 200', async () => {
    const { platform, platformUserId } = await userWithChain('wire-user');
    const server = await listen(api.app);
    try {
      const first = await fetch(`${server.url}/v1/quest-chains/active/${platformUserId}`, { headers: platform.headers });
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag')!;
      await first.arrayBuffer();
      const { port } = new URL(server.url);
      const head = (extra: string) =>
        `GET /v1/quest-chains/active/${platformUserId} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${platform.headers['x-api-key']}\r\nX-API-Secret: ${platform.headers['x-api-secret']}\r\n${extra}\r\n`;
      // Two requests on one keep-alive connection: a 304 that claimed a body would swallow the second answer.
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () =>
          socket.write(head(`If-None-Match: ${etag}\r\nX-Request-Id: wire-304\r\n`) + head('X-Request-Id: wire-200\r\n')),
        );
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk.toString();
          // Done once the 200's whole body (its Content-Length) is in.
          const ok = /HTTP\/1\.1 200[\s\S]*?Content-Length: (\d+)[\s\S]*?\r\n\r\n/.exec(text);
          if (ok && Buffer.byteLength(text.slice(ok.index + ok[0].length)) >= Number(ok[1])) socket.end(), resolve(text);
        });
        socket.on('error', reject);
      });
      const [notModified, rest] = [raw.slice(0, raw.indexOf('\r\n\r\n')), raw.slice(raw.indexOf('\r\n\r\n') + 4)];
      expect(notModified).toMatch(/^HTTP\/1\.1 304 /);
      expect(notModified.toLowerCase()).not.toContain('content-length');
      expect(notModified).toContain(`ETag: ${etag}`);
      expect(notModified).toContain('X-Request-Id: wire-304');
      expect(notModified).toContain('Cache-Control: private, no-cache');
      expect(rest).toMatch(/^HTTP\/1\.1 200 /);
      // The 200 is written straight to Node's response (api/http/direct-answer.ts): every header, and a length that is the body's.
      const [okHead, okBody] = [rest.slice(0, rest.indexOf('\r\n\r\n')), rest.slice(rest.indexOf('\r\n\r\n') + 4)];
      expect(okHead).toContain('X-Request-Id: wire-200');
      expect(okHead).toContain(`ETag: ${etag}`);
      expect(okHead).toContain('Cache-Control: private, no-cache');
      expect(okHead).toContain('Content-Type: application/json');
      expect(okHead).toContain(`Content-Length: ${Buffer.byteLength(okBody)}`);
      expect(JSON.parse(okBody)).toMatchObject({ success: true, data: { user: { exists: true } } });
    } finally {
      await server.close();
    }
  });
});
