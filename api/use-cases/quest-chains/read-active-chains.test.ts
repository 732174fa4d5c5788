import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '../../../shared/db/schema/index.js';
import { LiveTokenSigner } from '../../../shared/live/token.js';
import { createTestDatabase, type TestDatabase } from '../../../shared/testing/database.js';
import { createTestProvider, type TestProvider } from '../../../shared/testing/fixtures.js';
import { ActiveChainCache } from '../../read-cache/active-chain-cache.js';
import { toCreateChainInput, type CreateChainBody } from '../../routes/admin/quest-chains/schema.js';
import { toActiveChainsResponse } from '../../routes/quest-chains/schema.js';
import { storeClaim, storeCompletion } from '../../../shared/testing/progress.js';
import { createChain } from './create-chain.js';
import { readActiveChains } from './read-active-chains.js';

// The read must cost a bounded number of statements whatever the number of
// chains and tasks. Statements are counted with postgres.js's `debug` hook,
// which fires once per statement sent, on a client of its own.

const DAY_MS = 24 * 60 * 60 * 1000;

let database: TestDatabase;
let counted: postgres.Sql;
let statements = 0;
let advertiser: TestProvider;
const liveTokens = new LiveTokenSigner(Buffer.alloc(32, 7));

interface Fixture {
  platformId: string;
  platformUserId: string;
}

function chainInput(platformId: string, index: number): CreateChainBody {
  const now = Date.now();
  return {
    platform_id: platformId,
    advertiser_id: advertiser.id,
    name: `chain ${index}`,
    start_date: new Date(now - DAY_MS).toISOString(),
    end_date: new Date(now + DAY_MS).toISOString(),
    tasks: Array.from({ length: 5 }, (_, i) => ({
      sequence_number: i + 1,
      name: `task ${i + 1}`,
      condition_event_type: `step-${i + 1}`,
      reward_type: 'points',
      reward_name: 'points',
      reward_value: 1,
    })),
    chain_reward: { type: 'box', name: 'box' },
  };
}

/** A platform with `chains` active chains of 5 tasks and a user who completed 2 tasks of each and claimed one reward of each. */
async function platformWithChains(chains: number): Promise<Fixture> {
  const platform = await createTestProvider(database.db, 'platform');
  const platformUserId = `user-of-${chains}`;
  const [user] = await database.sql<{ id: string }[]>`
    insert into users (platform_id, platform_user_id) values (${platform.id}, ${platformUserId}) returning id`;
  for (let index = 0; index < chains; index++) {
    const { chain, tasks } = await createChain(database, toCreateChainInput(chainInput(platform.id, index)));
    for (const task of tasks.slice(0, 2)) {
      await storeCompletion(database.db, { userId: user!.id, providerId: platform.id, platformUserId, taskId: task.id, chainId: chain.id, at: new Date().toISOString() });
    }
    await storeClaim(database.db, { userId: user!.id, chainId: chain.id, taskId: tasks[0]!.id });
  }
  return { platformId: platform.id, platformUserId };
}

beforeAll(async () => {
  database = await createTestDatabase('active_read_count');
  advertiser = await createTestProvider(database.db, 'advertiser');
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
  await database.drop();
});

async function countStatements(cache: ActiveChainCache, fixture: Fixture) {
  const db = drizzle(counted, { schema });
  const before = statements;
  const data = toActiveChainsResponse(await readActiveChains({ db, chainCache: cache, liveTokens }, fixture));
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
    expect((await countStatements(cache, { platformId: fixture.platformId, platformUserId: 'nobody' })).count).toBe(1);
  });
});
