import { and, eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readActiveChains } from '../../../../core/quest-chains/read-active-chains.js';
import * as schema from '../../../../shared/db/schema/index.js';
import { type SenderUserId, senderUserId } from '../../../../shared/domain/ids.js';
import { LiveTokenSigner } from '../../../../shared/live/token.js';
import { createTestChain, createTestUser } from '../../../../shared/testing/chains.js';
import { createTestProvider } from '../../../../shared/testing/fixtures.js';
import { storeClaim, storeCompletion } from '../../../../shared/testing/progress.js';
import { useTestData } from '../../../../shared/testing/test-data.js';
import { activeAnswer } from '../../../read-cache/active-answer.js';
import { ActiveChainCache } from '../../../read-cache/active-chain-cache.js';
import { toActiveChainsResponse } from './schema.js';

// The read must cost a bounded number of statements whatever the number of
// chains and tasks. Statements are counted with postgres.js's `debug` hook,
// which fires once per statement sent, on a client of its own.

const { database, advertiser } = useTestData('active_read_count');
let counted: postgres.Sql;
let statements = 0;
const liveTokens = new LiveTokenSigner(Buffer.alloc(32, 7));

interface Fixture {
  platformId: string;
  platformUserId: SenderUserId;
}

/** A platform with `chains` active chains of 5 tasks and a user who completed 2 tasks of each and claimed one reward of each. */
async function platformWithChains(chains: number): Promise<Fixture> {
  const platform = await createTestProvider(database.db, 'platform');
  const platformUserId = `user-of-${chains}`;
  const userId = await createTestUser(database.db, platform.id, platformUserId);
  for (let index = 0; index < chains; index++) {
    const chain = await createTestChain(database.db, platform.id, advertiser.id, {
      name: `chain ${index}`,
      tasks: Array.from({ length: 5 }, (_, i) => ({ event: `step-${i + 1}` })),
      reward: { type: 'box', name: 'box' },
    });
    for (const taskId of chain.taskIds.slice(0, 2)) {
      await storeCompletion(database.db, {
        userId,
        providerId: platform.id,
        platformUserId,
        taskId,
        chainId: chain.id,
        at: new Date().toISOString(),
      });
    }
    await storeClaim(database.db, { userId, chainId: chain.id, taskId: chain.taskIds[0]! });
  }
  return { platformId: platform.id, platformUserId: senderUserId(platformUserId) };
}

beforeAll(async () => {
  counted = postgres(database.url, {
    max: 4,
    onnotice: () => {},
    connection: { TimeZone: 'UTC' },
    debug: () => {
      statements++;
    },
  });
});
afterAll(async () => {
  await counted.end({ timeout: 5 });
});

async function countStatements(cache: ActiveChainCache, fixture: Fixture) {
  const db = drizzle(counted, { schema });
  const before = statements;
  const data = toActiveChainsResponse(
    await readActiveChains({ readDb: db, chainCache: cache, liveTokens }, { ...fixture, livemode: true }),
  );
  return { count: statements - before, data };
}

describe('readActiveChains statement count', () => {
  it('does not grow with the number of chains and tasks', async () => {
    const one = await platformWithChains(1);
    const ten = await platformWithChains(10);
    const db = drizzle(counted, { schema });
    const uncached = new ActiveChainCache(db, 0);
    await countStatements(uncached, one); // warm up connections (type fetching is not the read's cost)

    const small = await countStatements(uncached, one);
    const large = await countStatements(uncached, ten);
    // The results are real: every chain listed with its completions and claims.
    expect(small.data.quest_chains).toHaveLength(1);
    expect(large.data.quest_chains).toHaveLength(10);
    expect(large.data.quest_chains.every((entry) => entry.user_progress.progress === 40)).toBe(true);
    expect(large.data.claimable_tasks).toHaveLength(10);
    // The definitions (chains with tasks and rewards) in one statement, then the user with completions and claims in one.
    expect(small.count).toBe(2);
    expect(large.count).toBe(small.count);
  });

  it('costs one statement with warm definitions, for a known or an unknown user', async () => {
    const fixture = await platformWithChains(3);
    const cache = new ActiveChainCache(drizzle(counted, { schema }), 60_000);
    expect((await countStatements(cache, fixture)).count).toBe(2);
    const warm = await countStatements(cache, fixture);
    expect(warm.data.quest_chains).toHaveLength(3);
    expect(warm.count).toBe(1);
    expect((await countStatements(cache, { platformId: fixture.platformId, platformUserId: senderUserId('nobody') })).count).toBe(
      1,
    );
  });
});

describe('the answer cache spares the read', () => {
  const userIds = (count: number) => Array.from({ length: count }, (_, n) => senderUserId(`cached-${n}`));
  async function platformWithUsers(count: number) {
    const platform = await createTestProvider(database.db, 'platform');
    await createTestChain(database.db, platform.id, advertiser.id, { tasks: [{ event: 'a' }, { event: 'b' }] });
    for (const user of userIds(count)) await createTestUser(database.db, platform.id, user);
    return platform.id;
  }
  const answerOf = (
    cache: ActiveChainCache,
    platformId: string,
    platformUserId: SenderUserId,
    nowMs: number,
    ifNoneMatch?: string,
  ) =>
    activeAnswer(
      { readDb: drizzle(counted, { schema }), chainCache: cache, liveTokens },
      { platformId, platformUserId, livemode: true, nowMs, ifNoneMatch },
      (answer) => JSON.stringify({ success: true, data: toActiveChainsResponse(answer) }),
    );

  it('keeps an answer past the definitions’ lifetime and the token’s minute, until a notice', async () => {
    const platformId = await platformWithUsers(1);
    const [user] = userIds(1);
    const cache = new ActiveChainCache(drizzle(counted, { schema }), 60_000, { ttlMs: 600_000 });
    cache.answers.follow(true);
    const now = Date.now();
    const first = await answerOf(cache, platformId, user!, now);
    // Five minutes on, the definitions read again (as CHAIN_CACHE_TTL_MS would): the same answer, no read of the user.
    cache.invalidate(platformId);
    const before = statements;
    const later = await answerOf(cache, platformId, user!, now + 5 * 60_000);
    expect(statements - before).toBe(1);
    expect(later.etag).toBe(first.etag);
    // Past ANSWER_CACHE_TTL_MS (the safety net), or after a notice, it is read again.
    const beforeExpiry = statements;
    await answerOf(cache, platformId, user!, now + 11 * 60_000);
    expect(statements - beforeExpiry).toBe(1);
    cache.answers.invalidateUser(await userIdOf(platformId, user!));
    const beforeNotice = statements;
    await answerOf(cache, platformId, user!, now + 11 * 60_000);
    expect(statements - beforeNotice).toBe(1);
  });

  it('answers a revalidation from the tag index with no statement once the bodies were evicted; a notice drops both', async () => {
    const users = userIds(20);
    const platformId = await platformWithUsers(users.length);
    // Room for no body at all: only the tags stay.
    const cache = new ActiveChainCache(drizzle(counted, { schema }), 60_000, { ttlMs: 600_000, maxBytes: 1 });
    cache.answers.follow(true);
    const now = Date.now();
    const etags = new Map<SenderUserId, string>();
    for (const user of users) etags.set(user, (await answerOf(cache, platformId, user, now)).etag);
    expect(cache.answers.size).toEqual({ entries: 0, bytes: 0, tags: users.length });

    const before = statements;
    for (const user of users) expect((await answerOf(cache, platformId, user, now + 90_000, etags.get(user))).body).toBeNull();
    expect(statements - before).toBe(0);

    cache.answers.invalidateUser(await userIdOf(platformId, users[0]!));
    const beforeChange = statements;
    // Read again (nothing really changed here, so the same tag answers 304 after the read).
    const reread = await answerOf(cache, platformId, users[0]!, now + 90_000, etags.get(users[0]!));
    expect(statements - beforeChange).toBe(1);
    expect(reread).toEqual({ etag: etags.get(users[0]!), body: null });
  });
});

async function userIdOf(platformId: string, platformUserId: SenderUserId): Promise<string> {
  const [row] = await database.db
    .select({ id: schema.users.id })
    .from(schema.users)
    .where(and(eq(schema.users.platformId, platformId), eq(schema.users.platformUserId, platformUserId)));
  return row!.id;
}
