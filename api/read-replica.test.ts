import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimedDayOf } from '../shared/db/reward-store.js';
import {
  accountLinks,
  chainRewards,
  providers,
  questChains,
  questTasks,
  rewardClaims,
  users,
} from '../shared/db/schema/index.js';
import { senderUserId } from '../shared/domain/ids.js';
import { createTestChain } from '../shared/testing/chains.js';
import { createTestDatabase, type TestDatabase } from '../shared/testing/database.js';
import { useTestData } from '../shared/testing/test-data.js';
import { createChainOverApi } from './testing/chains.js';
import { createTestApp, type TestApp } from './testing/test-app.js';

/**
 * DATABASE_READ_URL pointed at a second database that is NOT a copy of the
 * primary: whatever a request shows from it, it read there; whatever a write
 * leaves, it wrote where it landed. The reads that tolerate a replica's lag
 * must show the second database's rows, the writes must land on the primary.
 */
const { database, platform, advertiser } = useTestData('read_replica');
let replica: TestDatabase;
let api: TestApp;

beforeAll(async () => {
  replica = await createTestDatabase('read_replica_copy');
  // The providers exist on both, with the same ids (a replica would have them too).
  await replica.db.insert(providers).values([
    { id: platform.id, type: 'platform', name: 'replica platform' },
    { id: advertiser.id, type: 'advertiser', name: 'replica advertiser' },
  ]);
  api = await createTestApp(database, { DATABASE_READ_URL: replica.url });
});

afterAll(async () => {
  await api?.close();
  await replica?.drop();
});

const register = (platformUserId: string) =>
  api.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: platformUserId } });

const usersNamed = async (db: TestDatabase, platformUserId: string) =>
  (
    await db.db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.platformUserId, senderUserId(platformUserId)))
  ).map((row) => row.id);

describe('DATABASE_READ_URL', () => {
  it('registration (a write) goes to the primary; GET active reads the user from the read pool', async () => {
    await createChainOverApi(api, platform.id, advertiser.id, { start: '2020-01-01T00:00:00Z', end: '2040-01-01T00:00:00Z' });
    expect((await register('u-read')).status).toBe(200);
    expect(await usersNamed(database, 'u-read')).toHaveLength(1);
    expect(await usersNamed(replica, 'u-read')).toHaveLength(0);

    // The read pool does not know the user yet: the answer is an unknown user's (no chains).
    const before = await api.call('GET', '/v1/quest-chains/active/u-read', { headers: platform.headers });
    expect(before.status).toBe(200);
    expect(before.json.data.quest_chains).toEqual([]);

    // Once it does (replication caught up, here by hand), the read shows the active chain.
    await replica.db
      .insert(users)
      .values({ platformId: platform.id, platformUserId: senderUserId('u-read'), needsEvaluation: false });
    const after = await api.call('GET', '/v1/quest-chains/active/u-read', { headers: platform.headers });
    expect(after.json.data.quest_chains).toHaveLength(1);
  });

  it('the account-links and rewards lists read the read pool', async () => {
    expect((await register('u-lists')).status).toBe(200);
    const [replicaUser] = await replica.db
      .insert(users)
      .values({ platformId: platform.id, platformUserId: senderUserId('u-lists'), needsEvaluation: false })
      .returning({ id: users.id });
    await replica.db.insert(accountLinks).values({
      userId: replicaUser!.id,
      platformId: platform.id,
      advertiserId: advertiser.id,
      advertiserUserId: senderUserId('only-on-the-read-pool'),
    });
    const chain = await createTestChain(replica.db, platform.id, advertiser.id, { reward: true });
    await replica.db.insert(rewardClaims).values({
      userId: replicaUser!.id,
      kind: 'chain',
      chainId: chain.id,
      reward: { type: 'points', name: 'r', value: 1 },
      claimedDay: claimedDayOf(chain.id),
    });

    const links = await api.call('GET', '/v1/account-links/u-lists', { headers: platform.headers });
    expect(links.status).toBe(200);
    expect(links.json.data.links.map((link: { advertiser_user_id: string }) => link.advertiser_user_id)).toEqual([
      'only-on-the-read-pool',
    ]);
    const rewards = await api.call('GET', '/v1/rewards/u-lists', { headers: platform.headers });
    expect(rewards.status).toBe(200);
    expect(rewards.json.data.claimed).toHaveLength(1);
    // The primary has neither.
    expect(await database.db.$count(accountLinks)).toBe(0);
    expect(await database.db.$count(rewardClaims)).toBe(0);
  });

  it("the chain stats count the read pool's rows, for a chain the primary knows", async () => {
    const chain = await createTestChain(replica.db, platform.id, advertiser.id, { reward: true });
    // The chain itself is on both (a replica has what the primary had); its claim is on the read pool alone.
    await database.db.insert(questChains).values(await replica.db.select().from(questChains).where(eq(questChains.id, chain.id)));
    await database.db
      .insert(questTasks)
      .values(await replica.db.select().from(questTasks).where(eq(questTasks.chainId, chain.id)));
    await database.db
      .insert(chainRewards)
      .values(await replica.db.select().from(chainRewards).where(eq(chainRewards.chainId, chain.id)));
    const [replicaUser] = await replica.db
      .insert(users)
      .values({ platformId: platform.id, platformUserId: senderUserId('u-stats'), needsEvaluation: false })
      .returning({ id: users.id });
    await replica.db.insert(rewardClaims).values({
      userId: replicaUser!.id,
      kind: 'chain',
      chainId: chain.id,
      reward: { type: 'points', name: 'r', value: 7 },
      claimedDay: claimedDayOf(chain.id),
    });

    const stats = await api.call('GET', `/admin/v1/quest-chains/${chain.id}/stats`, { headers: api.adminHeaders });
    expect(stats.status, stats.text).toBe(200);
    expect(stats.json.data.budget.spent).toBe(7);
    expect(await database.db.$count(rewardClaims, eq(rewardClaims.chainId, chain.id))).toBe(0);
  });

  it('without DATABASE_READ_URL the read pool is the primary pool itself', async () => {
    const plain = await createTestApp(database);
    try {
      expect(plain.deps.readDb).toBe(plain.deps.db);
      expect(api.deps.readDb).not.toBe(api.deps.db);
    } finally {
      await plain.close();
    }
  });
});
