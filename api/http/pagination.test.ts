import { randomUUID } from 'node:crypto';
import { asc } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateKey, hashSecret } from '../../shared/auth/secrets.js';
import { insertCredential } from '../../shared/db/credential-store.js';
import { providers } from '../../shared/db/schema/index.js';
import { createTestChain, createTestUser } from '../../shared/testing/chains.js';
import { createTestProvider, type TestProvider } from '../../shared/testing/fixtures.js';
import { storeClaim, storeCompletion } from '../../shared/testing/progress.js';
import { useTestService } from '../testing/test-service.js';

// Every list pages by cursor: `limit` (default 50, at most 200),
// `starting_after` (the last item's id), `has_more`. Walking a list page by
// page gives each item once, in the list's order, with nothing missed.

const { database, api, platform, advertiser } = useTestService('pagination');

interface Page {
  ids: string[];
  hasMore: boolean;
  /** The id to pass as starting_after for the next page. */
  cursor: string | undefined;
}

async function readPage(path: string, headers: Record<string, string>, read: (data: any) => Page, query: Record<string, string>) {
  const separator = path.includes('?') ? '&' : '?';
  const answer = await api.call('GET', `${path}${separator}${new URLSearchParams(query)}`, { headers });
  expect(answer.status, answer.text).toBe(200);
  return read(answer.json.data);
}

/** Every page of a list at `limit` per page, and the pages' sizes. */
async function walk(path: string, headers: Record<string, string>, read: (data: any) => Page, limit: number) {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages += 1) {
    const page = await readPage(path, headers, read, { limit: String(limit), ...(cursor ? { starting_after: cursor } : {}) });
    ids.push(...page.ids);
    sizes.push(page.ids.length);
    if (!page.hasMore) return { ids, sizes };
    cursor = page.cursor;
  }
  throw new Error('the walk did not end');
}

const lastId = (ids: string[]) => ids.at(-1);
const providersPage = (data: any): Page => {
  const ids = data.providers.map((p: { id: string }) => p.id);
  return { ids, hasMore: data.has_more, cursor: lastId(ids) };
};

describe('GET /admin/v1/providers: 120 providers in pages of 50', () => {
  beforeAll(async () => {
    // One statement: all 120 share one created_at, so only the id orders them (the keyset's tie-breaker).
    await database.db
      .insert(providers)
      .values(Array.from({ length: 120 }, (_, i) => ({ type: 'advertiser' as const, name: `bulk ${i}` })));
  });

  it('walks every provider once, oldest first, with no gap', async () => {
    const stored = await database.db
      .select({ id: providers.id })
      .from(providers)
      .orderBy(asc(providers.createdAt), asc(providers.id));
    expect(stored.length).toBe(122); // the file's platform and advertiser, and the 120
    const { ids, sizes } = await walk('/admin/v1/providers', api.adminHeaders, providersPage, 50);
    expect(sizes).toEqual([50, 50, 22]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(stored.map((row) => row.id));
  });

  it('answers 50 by default and at most 200', async () => {
    expect((await readPage('/admin/v1/providers', api.adminHeaders, providersPage, {})).ids).toHaveLength(50);
    expect((await readPage('/admin/v1/providers', api.adminHeaders, providersPage, { limit: '200' })).ids).toHaveLength(122);
  });

  it.each([['0'], ['201'], ['-1'], ['1.5'], ['ten'], ['']])('limit=%s -> 400 invalid_field naming limit', async (limit) => {
    const answer = await api.call('GET', `/admin/v1/providers?limit=${limit}`, { headers: api.adminHeaders });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toMatchObject({ code: 'invalid_field', param: 'limit' });
  });

  it.each([
    ['an id of no item', randomUUID()],
    ['not an id at all', 'nope'],
  ])('starting_after %s -> 400 invalid_field naming starting_after', async (_label, cursor) => {
    const answer = await api.call('GET', `/admin/v1/providers?starting_after=${cursor}`, { headers: api.adminHeaders });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toMatchObject({ code: 'invalid_field', param: 'starting_after' });
  });
});

describe('every other list walks the same way', () => {
  let owner: TestProvider;
  let chainPlatform: TestProvider;
  const linkedUser = 'paged-links';
  const rewardedUser = 'paged-rewards';

  beforeAll(async () => {
    owner = await createTestProvider(database.db, 'platform');
    for (let i = 0; i < 6; i += 1) {
      await insertCredential(database.db, {
        key: generateKey(),
        providerId: owner.id,
        secretHash: hashSecret(randomUUID()),
        permissions: [],
      });
    }
    chainPlatform = await createTestProvider(database.db, 'platform');
    for (let i = 0; i < 7; i += 1) await createTestChain(database.db, chainPlatform.id, advertiser.id, { name: `paged ${i}` });

    await api.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: linkedUser } });
    for (let i = 0; i < 5; i += 1) {
      const other = await createTestProvider(database.db, 'advertiser');
      const started = await api.call('POST', '/v1/account-links', {
        headers: platform.headers,
        body: { platform_user_id: linkedUser, advertiser_id: other.id },
      });
      const body = { connection_token: started.json.data.connection_token, advertiser_user_id: `adv-${i}` };
      expect((await api.call('POST', '/v1/account-links/complete', { headers: other.headers, body })).status).toBe(200);
    }

    // 4 claimable task rewards, 1 claimable chain reward, 2 claims: every section of the rewards list.
    const userId = await createTestUser(database.db, platform.id, rewardedUser);
    const window = { start: '2020-01-01T00:00:00Z', end: '2099-01-01T00:00:00Z' };
    const reward = { type: 'box', name: 'Box', value: 1 };
    const a = await createTestChain(database.db, platform.id, advertiser.id, { ...window, tasks: [{}, {}, {}], reward });
    const b = await createTestChain(database.db, platform.id, advertiser.id, { ...window, tasks: [{}, {}], reward });
    const done = [
      ...a.taskIds.map((taskId) => ({ taskId, chainId: a.id })),
      ...b.taskIds.map((taskId) => ({ taskId, chainId: b.id })),
    ];
    for (const [index, task] of done.entries()) {
      await storeCompletion(database.db, {
        userId,
        providerId: platform.id,
        platformUserId: rewardedUser,
        ...task,
        at: `2026-01-0${index + 1}T00:00:00Z`,
      });
    }
    await storeClaim(database.db, { userId, chainId: a.id, taskId: a.taskIds[0]! });
    await storeClaim(database.db, { userId, chainId: b.id, taskId: null });
  });

  const rewardsPage = (data: any): Page => {
    const claimable = data.claimable.map((entry: { kind: string; task_id?: string; quest_chain_id: string }) =>
      entry.kind === 'task' ? entry.task_id! : entry.quest_chain_id,
    );
    const claimed = data.claimed.map((entry: { claim_id: string }) => entry.claim_id);
    // The documented cursor: the last claimed entry, else the last claimable one.
    return { ids: [...claimable, ...claimed], hasMore: data.has_more, cursor: lastId(claimed) ?? lastId(claimable) };
  };
  const lists: [string, () => string, () => Record<string, string>, (data: any) => Page, number][] = [
    [
      'credentials',
      () => `/admin/v1/providers/${owner.id}/credentials`,
      () => api.adminHeaders,
      (data) => {
        const ids = data.credentials.map((c: { key: string }) => c.key);
        return { ids, hasMore: data.has_more, cursor: lastId(ids) };
      },
      7,
    ],
    [
      'quest chains of one platform',
      () => `/admin/v1/quest-chains?platform_id=${chainPlatform.id}`,
      () => api.adminHeaders,
      (data) => {
        const ids = data.quest_chains.map((c: { quest_chain: { id: string } }) => c.quest_chain.id);
        return { ids, hasMore: data.has_more, cursor: lastId(ids) };
      },
      7,
    ],
    [
      'account links',
      () => `/v1/account-links/${linkedUser}`,
      () => platform.headers,
      (data) => {
        const ids = data.links.map((l: { link_id: string }) => l.link_id);
        return { ids, hasMore: data.has_more, cursor: lastId(ids) };
      },
      5,
    ],
    ['rewards', () => `/v1/rewards/${rewardedUser}`, () => platform.headers, rewardsPage, 7],
  ];

  it.each(lists)('%s: pages of 1, 2 and 3 give the whole list once, in order', async (_name, path, headers, read, total) => {
    const whole = await readPage(path(), headers(), read, { limit: '200' });
    expect(whole.ids).toHaveLength(total);
    expect(whole.hasMore).toBe(false);
    for (const limit of [1, 2, 3]) {
      const { ids, sizes } = await walk(path(), headers(), read, limit);
      expect(ids, `limit ${limit}`).toEqual(whole.ids);
      expect(sizes.slice(0, -1).every((size) => size === limit)).toBe(true);
    }
  });

  it.each(lists)('%s: a starting_after outside the list -> 400 naming it', async (_name, path, headers) => {
    const separator = path().includes('?') ? '&' : '?';
    const answer = await api.call('GET', `${path()}${separator}starting_after=${randomUUID()}`, { headers: headers() });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toMatchObject({ code: 'invalid_field', param: 'starting_after' });
  });
});
