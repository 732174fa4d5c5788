import { createHash } from 'node:crypto';
import { and, count as countRows, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { updateProvider } from '../../../core/admin/providers.js';
import { accountLinks, events, linkTokens, users } from '../../../shared/db/schema/index.js';
import { senderUserId, serviceUserId } from '../../../shared/domain/ids.js';
import { dateToMicros, formatIsoMicros } from '../../../shared/domain/timestamp.js';
import { createTestProvider, type TestProvider } from '../../../shared/testing/fixtures.js';
import { useTestService } from '../../testing/test-service.js';

const { database, api, platform, advertiser } = useTestService('account_links');
let otherPlatform: TestProvider;
let otherAdvertiser: TestProvider;

beforeAll(async () => {
  otherPlatform = await createTestProvider(database.db, 'platform');
  otherAdvertiser = await createTestProvider(database.db, 'advertiser');
});

async function register(owner: TestProvider, platformUserId: string): Promise<string> {
  const answer = await api.call('POST', '/v1/users/register', {
    headers: owner.headers,
    body: { platform_user_id: platformUserId },
  });
  expect(answer.status).toBe(200);
  return answer.json.data.user_id as string;
}

async function start(platformUserId: string, options: { owner?: TestProvider; advertiserId?: string } = {}) {
  const answer = await api.call('POST', '/v1/account-links', {
    headers: (options.owner ?? platform).headers,
    body: { platform_user_id: platformUserId, advertiser_id: options.advertiserId ?? advertiser.id },
  });
  expect(answer.status).toBe(200);
  return answer.json.data.connection_token as string;
}

const complete = (token: string, advertiserUserId: string, caller: TestProvider = advertiser) =>
  api.call('POST', '/v1/account-links/complete', {
    headers: caller.headers,
    body: { connection_token: token, advertiser_user_id: advertiserUserId },
  });

const expire = (token: string) =>
  database.db
    .update(linkTokens)
    .set({ expiresAt: dateToMicros(new Date()) - 1_000_000n })
    .where(eq(linkTokens.tokenHash, createHash('sha256').update(token).digest('hex')));

describe('the link handshake', () => {
  it('issues a 15-minute token stored only as its hash, links, records the link event and flags the user', async () => {
    const userId = await register(platform, 'hs-1');
    await database.db
      .update(users)
      .set({ needsEvaluation: false })
      .where(eq(users.id, serviceUserId(userId)));

    const started = await api.call('POST', '/v1/account-links', {
      headers: platform.headers,
      body: { platform_user_id: 'hs-1', advertiser_id: advertiser.id },
    });
    expect(started.status).toBe(200);
    const token = started.json.data.connection_token as string;
    expect(token).toMatch(/^lt_[\w-]{43}$/);
    const expiresInMs = Date.parse(started.json.data.expires_at) - Date.now();
    expect(expiresInMs).toBeGreaterThan(14 * 60_000);
    expect(expiresInMs).toBeLessThanOrEqual(15 * 60_000);
    const stored = await database.db
      .select({ token_hash: linkTokens.tokenHash })
      .from(linkTokens)
      .where(eq(linkTokens.userId, serviceUserId(userId)));
    expect(stored).toEqual([{ token_hash: createHash('sha256').update(token).digest('hex') }]);

    const done = await complete(token, 'adv-hs-1');
    expect(done.status).toBe(200);
    expect(done.json.data).toMatchObject({ advertiser_user_id: 'adv-hs-1', already_linked: false });
    expect(done.json.data.linked_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const [storedEvent] = await database.db
      .select({ id: events.id, provider_id: events.providerId, occurredAt: events.occurredAt })
      .from(events)
      .where(and(eq(events.userId, senderUserId('adv-hs-1')), eq(events.eventType, 'link_account')));
    const event = storedEvent && { ...storedEvent, occurred_at: formatIsoMicros(storedEvent.occurredAt) };
    expect(event?.provider_id).toBe(advertiser.id);
    expect(event?.occurred_at).toBe(done.json.data.linked_at.replace('Z', '000Z'));
    const [user] = await database.db
      .select({ needs_evaluation: users.needsEvaluation })
      .from(users)
      .where(eq(users.id, serviceUserId(userId)));
    expect(user?.needs_evaluation).toBe(true);
    const [tokenRow] = await database.db
      .select({ usedAt: linkTokens.usedAt, link_id: linkTokens.linkId })
      .from(linkTokens)
      .where(eq(linkTokens.userId, serviceUserId(userId)));
    const used = tokenRow && { used: tokenRow.usedAt !== null, link_id: tokenRow.link_id };
    expect(used).toEqual({ used: true, link_id: done.json.data.link_id });

    // Both matching jobs were enqueued after commit.
    const waiting = await api.deps.producer.queue.getJobs(['waiting', 'prioritized']);
    expect(waiting.some((job) => (job.data as { eventIds?: string[] }).eventIds?.includes(event!.id))).toBe(true);
    expect(await api.deps.producer.queue.getJob(`user-${userId}`)).toBeTruthy();

    const links = await api.call('GET', '/v1/account-links/hs-1', { headers: platform.headers });
    expect(links.status).toBe(200);
    expect(links.json.data.links).toEqual([
      {
        link_id: done.json.data.link_id,
        advertiser_id: advertiser.id,
        advertiser_user_id: 'adv-hs-1',
        linked_at: done.json.data.linked_at,
      },
    ]);
  });

  it('answers a retry with the same link, even after the token expired', async () => {
    await register(platform, 'retry-1');
    const token = await start('retry-1');
    const first = await complete(token, 'adv-retry-1');
    const again = await complete(token, 'adv-retry-1');
    expect(again.status).toBe(200);
    expect(again.json.data).toEqual({ ...first.json.data, already_linked: true });
    await expire(token);
    const afterExpiry = await complete(token, 'adv-retry-1');
    expect(afterExpiry.status).toBe(200);
    expect(afterExpiry.json.data).toEqual({ ...first.json.data, already_linked: true });
    const [count] = await database.db
      .select({ n: countRows() })
      .from(events)
      .where(eq(events.userId, senderUserId('adv-retry-1')));
    expect(count?.n).toBe(1);
  });

  it('answers a new token for an already linked pair with already_linked', async () => {
    await register(platform, 'pair-1');
    const first = await complete(await start('pair-1'), 'adv-pair-1');
    const second = await complete(await start('pair-1'), 'adv-pair-1');
    expect(second.status).toBe(200);
    expect(second.json.data).toEqual({ ...first.json.data, already_linked: true });
  });

  it('links one advertiser user id to one user on each platform', async () => {
    await register(platform, 'multi-1');
    await register(otherPlatform, 'multi-1-elsewhere');
    const here = await complete(await start('multi-1'), 'adv-multi');
    const there = await complete(await start('multi-1-elsewhere', { owner: otherPlatform }), 'adv-multi');
    expect([here.status, there.status]).toEqual([200, 200]);
    expect(there.json.data.already_linked).toBe(false);
    expect(there.json.data.link_id).not.toBe(here.json.data.link_id);
  });
});

describe('400: bad tokens and bad starts', () => {
  it('rejects an unknown token', async () => {
    const answer = await complete('lt_not-a-token', 'adv-x');
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ success: false, code: 'link_token_invalid', param: 'connection_token' });
    expect(answer.json.error).toContain('connection_token');
  });

  it('rejects a token issued for another advertiser, and leaves it usable by the right one', async () => {
    await register(platform, 'wrong-adv');
    const token = await start('wrong-adv');
    const answer = await complete(token, 'adv-wrong', otherAdvertiser);
    expect(answer.status).toBe(400);
    expect(answer.json.error).toContain('another advertiser');
    expect((await complete(token, 'adv-wrong')).json.data.already_linked).toBe(false);
  });

  it('rejects an expired, unused token', async () => {
    await register(platform, 'expired-1');
    const token = await start('expired-1');
    await expire(token);
    const answer = await complete(token, 'adv-expired-1');
    expect(answer.status).toBe(400);
    expect(answer.json.error).toContain('expired');
  });

  it('refuses to start for unregistered or foreign users and for non-advertisers', async () => {
    await register(otherPlatform, 'foreign-1');
    const inactive = await createTestProvider(database.db, 'advertiser');
    await updateProvider({ db: database.db }, { providerId: inactive.id, status: 'inactive' });
    const cases: [Record<string, unknown>, string][] = [
      [{ platform_user_id: 'nobody', advertiser_id: advertiser.id }, 'platform_user_id'],
      [{ platform_user_id: 'foreign-1', advertiser_id: advertiser.id }, 'platform_user_id'],
      [{ platform_user_id: 'hs-1', advertiser_id: otherPlatform.id }, 'advertiser_id'],
      [{ platform_user_id: 'hs-1', advertiser_id: inactive.id }, 'advertiser_id'],
      [{ platform_user_id: 'hs-1', advertiser_id: '00000000-0000-4000-8000-000000000000' }, 'advertiser_id'],
      [{ platform_user_id: 'hs-1', advertiser_id: 'not-a-uuid' }, 'advertiser_id'],
      [{ advertiser_id: advertiser.id }, 'platform_user_id'],
    ];
    for (const [body, field] of cases) {
      const answer = await api.call('POST', '/v1/account-links', { headers: platform.headers, body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json.error).toContain(field);
    }
  });

  it('names the field of a bad completion body', async () => {
    const answer = await api.call('POST', '/v1/account-links/complete', {
      headers: advertiser.headers,
      body: { connection_token: 'x', advertiser_user_id: '' },
    });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toContain('advertiser_user_id');
  });
});

describe('409: conflicting links', () => {
  it('refuses a used token for another advertiser user id', async () => {
    await register(platform, 'c-token');
    const token = await start('c-token');
    expect((await complete(token, 'adv-c-token')).status).toBe(200);
    const answer = await complete(token, 'adv-c-token-other');
    expect(answer.status).toBe(409);
    expect(answer.json).toMatchObject({ success: false, code: 'link_token_used', param: 'connection_token' });
  });

  it('refuses an advertiser user id already linked to another user of the platform', async () => {
    await register(platform, 'c-taken-a');
    await register(platform, 'c-taken-b');
    expect((await complete(await start('c-taken-a'), 'adv-taken')).status).toBe(200);
    const answer = await complete(await start('c-taken-b'), 'adv-taken');
    expect(answer.status).toBe(409);
    expect(answer.json.error).toContain('another user');
  });

  it('refuses a user already linked to another advertiser user id of this advertiser', async () => {
    await register(platform, 'c-user');
    expect((await complete(await start('c-user'), 'adv-c-user-1')).status).toBe(200);
    const answer = await complete(await start('c-user'), 'adv-c-user-2');
    expect(answer.status).toBe(409);
    expect(answer.json.error).toContain('already linked to another advertiser_user_id');
    // The same user may still link to another advertiser.
    const elsewhere = await complete(
      await start('c-user', { advertiserId: otherAdvertiser.id }),
      'adv-c-user-2',
      otherAdvertiser,
    );
    expect(elsewhere.status).toBe(200);
  });
});

describe('concurrency', () => {
  it('completes one token once under 10 concurrent identical calls', async () => {
    await register(platform, 'race-same');
    const token = await start('race-same');
    const answers = await Promise.all(Array.from({ length: 10 }, () => complete(token, 'adv-race-same')));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.json.data.link_id)).size).toBe(1);
    expect(answers.filter((a) => a.json.data.already_linked === false)).toHaveLength(1);
  });

  it('lets one of two tokens racing to link one user to two ids win; the other gets 409', async () => {
    await register(platform, 'race-two');
    const [tokenA, tokenB] = [await start('race-two'), await start('race-two')];
    const answers = await Promise.all([complete(tokenA, 'adv-race-a'), complete(tokenB, 'adv-race-b')]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const [count] = await database.db
      .select({ n: countRows() })
      .from(accountLinks)
      .innerJoin(users, eq(users.id, accountLinks.userId))
      .where(eq(users.platformUserId, senderUserId('race-two')));
    expect(count?.n).toBe(1);
  });
});

describe('authorization', () => {
  it('answers 403 for the wrong provider type or a missing permission, 401 without credentials', async () => {
    await register(platform, 'auth-1');
    const token = await start('auth-1');
    const platformCompleting = await complete(token, 'adv-auth', platform);
    expect(platformCompleting.status).toBe(403);
    const advertiserStarting = await api.call('POST', '/v1/account-links', {
      headers: advertiser.headers,
      body: { platform_user_id: 'auth-1', advertiser_id: advertiser.id },
    });
    expect(advertiserStarting.status).toBe(403);
    const readOnlyPlatform = await createTestProvider(database.db, 'platform', { permissions: ['users:register'] });
    const noWrite = await api.call('POST', '/v1/account-links', {
      headers: readOnlyPlatform.headers,
      body: { platform_user_id: 'auth-1', advertiser_id: advertiser.id },
    });
    expect(noWrite.status).toBe(403);
    expect(noWrite.json.error).toContain('account_links:write');
    const eventsOnlyAdvertiser = await createTestProvider(database.db, 'advertiser', { permissions: ['events:write'] });
    expect((await complete(token, 'adv-auth', eventsOnlyAdvertiser)).status).toBe(403);
    expect((await api.call('GET', '/v1/account-links/auth-1', { headers: advertiser.headers })).status).toBe(403);
    expect(
      (await api.call('POST', '/v1/account-links/complete', { body: { connection_token: token, advertiser_user_id: 'x' } }))
        .status,
    ).toBe(401);
    // None of these consumed the token.
    expect((await complete(token, 'adv-auth')).json.data.already_linked).toBe(false);
  });
});

describe('GET /v1/account-links/{platformUserId}', () => {
  it('shows nothing for unknown users or users of another platform', async () => {
    await register(otherPlatform, 'hidden-1');
    await complete(await start('hidden-1', { owner: otherPlatform }), 'adv-hidden-1');
    for (const id of ['hidden-1', 'never-registered']) {
      const answer = await api.call('GET', `/v1/account-links/${id}`, { headers: platform.headers });
      expect(answer.status).toBe(200);
      expect(answer.json.data).toEqual({ links: [], has_more: false });
    }
    const owner = await api.call('GET', '/v1/account-links/hidden-1', { headers: otherPlatform.headers });
    expect(owner.json.data.links).toHaveLength(1);
  });
});
