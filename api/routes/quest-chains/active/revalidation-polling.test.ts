import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventually } from '../../../../shared/testing/eventually.js';
import { createTestProvider, type TestProvider } from '../../../../shared/testing/fixtures.js';
import { chainBody } from '../../../testing/chains.js';
import { useTestService } from '../../../testing/test-service.js';

// Pollers of GET active hold the last answer and its ETag. The live token in
// the answer is renewed once a minute; that is not a change of the answer, so
// a poller of a user whose progress did not change gets 304 across the
// renewal (and keeps a token that is still valid). The clock is Date's, faked
// (nothing else), so the minutes pass without sleeping.

const { database, api, advertiser } = useTestService('revalidation_polling');
const USERS = 100;
const MINUTE_MS = 60_000;

beforeAll(async () => {
  await eventually(async () => api.deps.chainCache.answers.enabled || undefined, { what: 'answer cache following changes' });
});
afterEach(() => {
  vi.useRealTimers();
});

const read = (platform: TestProvider, platformUserId: string, etag?: string) =>
  api.call('GET', `/v1/quest-chains/active/${platformUserId}`, {
    headers: { ...platform.headers, ...(etag ? { 'if-none-match': etag } : {}) },
  });

const at = (ms: number) => vi.setSystemTime(ms);

describe('polling with If-None-Match across live-token renewals', () => {
  it('answers 304 to every revalidation of an unchanged user after the token window ends', async () => {
    const platform = await createTestProvider(database.db, 'platform');
    expect(
      (
        await api.call('POST', '/admin/v1/quest-chains', {
          headers: api.adminHeaders,
          body: chainBody(platform.id, advertiser.id),
        })
      ).status,
    ).toBe(200);
    const users = Array.from({ length: USERS }, (_, n) => `poller-${n}`);
    for (const user of users)
      expect(
        (await api.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: user } })).status,
      ).toBe(200);

    vi.useFakeTimers({ toFake: ['Date'] });
    const minute = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS;
    // Each poller's first read, late in a token window.
    at(minute + 59_000);
    const held = new Map<string, { etag: string; token: string }>();
    for (const user of users) {
      const answer = await read(platform, user);
      expect(answer.status).toBe(200);
      held.set(user, { etag: answer.headers.get('etag')!, token: answer.json.data.liveUpdates.token as string });
    }

    // Two token windows later, twice: nothing about the users changed.
    let notModified = 0;
    let revalidations = 0;
    for (const offset of [61_000, 121_000]) {
      at(minute + offset);
      for (const user of users) {
        const answer = await read(platform, user, held.get(user)!.etag);
        revalidations += 1;
        if (answer.status === 304) notModified += 1;
        else held.set(user, { etag: answer.headers.get('etag')!, token: answer.json.data.liveUpdates.token as string });
      }
    }
    expect(notModified / revalidations).toBeGreaterThanOrEqual(0.99);
    expect(notModified).toBe(revalidations);
    // What a 304 leaves the client with still opens the live stream.
    for (const { token } of held.values()) expect(api.deps.liveTokens.verify(token, minute + 121_000)).not.toBeNull();

    // A fresh read in the later window carries the new window's token, under the same tag.
    const fresh = await read(platform, users[0]!);
    expect(fresh.headers.get('etag')).toBe(held.get(users[0]!)!.etag);
    expect(fresh.json.data.liveUpdates.token).not.toBe(held.get(users[0]!)!.token);
  });
});
