import { eq } from 'drizzle-orm';
import { users as userRows } from '../../shared/db/schema/index.js';
import type { ServiceUserId } from '../../shared/domain/ids.js';
import type { ApiClient } from '../../shared/testing/api-client.js';
import type { TestDatabase } from '../../shared/testing/database.js';
import { storeCompletion } from '../../shared/testing/progress.js';
import { type SeededProvider, seedProvider, seedWorld as seedThroughApi } from '../../shared/testing/world-seeder.js';

/** What seeding needs of the bench context (declared here: context.ts imports this module). */
export interface SeedContext {
  client: ApiClient;
  database: TestDatabase;
}

export interface BenchWorld {
  platform: SeededProvider;
  advertiser: SeededProvider;
  chains: { id: string; taskIds: string[] }[];
  /** Registered platform user ids: `u-0` … `u-<n-1>`, each with progress in every chain. */
  users: string[];
}

const CHAINS = 5;
const TASKS = 5;
/** Event types of the seeded tasks: task i matches `step-<i % 3>`. */
const eventTypeOfTask = (task: number) => `step-${task % 3}`;

const JSON_CONTENT = { 'content-type': 'application/json' };

export const createProvider = (ctx: SeedContext, type: 'platform' | 'advertiser', name: string): Promise<SeededProvider> =>
  seedProvider(ctx.client, type, name, JSON_CONTENT);

const chainBody = (platformId: string, advertiserId: string, chain: number) => ({
  platform_id: platformId,
  advertiser_id: advertiserId,
  name: `bench chain ${chain}`,
  start_date: '2026-01-01T00:00:00Z',
  end_date: '2036-01-01T00:00:00Z',
  tasks: Array.from({ length: TASKS }, (_, task) => ({
    sequence_number: task + 1,
    name: `task ${task + 1}`,
    condition_event_type: eventTypeOfTask(task),
    reward_type: 'points',
    reward_name: 'points',
    reward_value: 10,
  })),
  chain_reward: { type: 'mystery_box', name: 'box' },
});

/**
 * Through the API like a real integrator: a platform and an advertiser, 5
 * active chains of 5 tasks, `userCount` registered users. Then, straight into
 * Postgres as the worker would write it, progress for every user (the first
 * two tasks of each chain done), so reads show real statuses and claimables
 * without depending on the matcher's speed.
 */
export async function seedWorld(ctx: SeedContext, userCount: number): Promise<BenchWorld> {
  const users = Array.from({ length: userCount }, (_, i) => `u-${i}`);
  const world = await seedThroughApi(ctx.client, {
    platforms: 1,
    advertisers: 1,
    name: (type) => `bench ${type}`,
    chains: ([platform], [advertiser]) =>
      Array.from({ length: CHAINS }, (_, chain) => ({ body: chainBody(platform!.id, advertiser!.id, chain), kept: {} })),
    users: users.map((platformUserId) => ({ platformIndex: 0, platformUserId })),
    providerHeaders: JSON_CONTENT,
  });
  const [platform, advertiser] = [world.platforms[0]!, world.advertisers[0]!];
  const chains = world.chains.map(({ id, taskIds }) => ({ id, taskIds }));
  const userIds = world.userIds as ServiceUserId[];
  await Promise.all(
    users.map(async (platformUserId, i) => {
      for (const chain of chains) {
        for (const taskId of chain.taskIds.slice(0, 2)) {
          await storeCompletion(ctx.database.db, {
            userId: userIds[i]!,
            providerId: platform.id,
            platformUserId,
            taskId,
            chainId: chain.id,
            at: '2026-02-01T00:00:00Z',
          });
        }
      }
    }),
  );
  await ctx.database.db
    .update(userRows)
    .set({ progressChangedAt: BigInt(Date.now()) * 1000n, needsEvaluation: false })
    .where(eq(userRows.platformId, platform.id));
  return { platform, advertiser, chains, users };
}
