import { and, asc, eq, inArray, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { chainRewards, questChains, questTasks } from '../../db/schema/index.js';
import { pgTimestampToMicros, pgTimestampToMicrosOrNull } from '../../db/timestamps.js';
import type { ChainRules } from '../../domain/progress.js';

export type ChainRow = typeof questChains.$inferSelect;
export type TaskRow = typeof questTasks.$inferSelect;
export type ChainRewardRow = typeof chainRewards.$inferSelect;

/** A chain with its tasks (in sequence order) and optional chain reward, plus its rules in domain form. */
export interface ChainDefinition {
  chain: ChainRow;
  tasks: TaskRow[];
  reward: ChainRewardRow | null;
  rules: ChainRules;
}

export function toChainRules(chain: ChainRow, tasks: readonly TaskRow[]): ChainRules {
  return {
    allowAnyOrder: chain.allowAnyOrder,
    startUs: pgTimestampToMicros(chain.startDate),
    endUs: pgTimestampToMicros(chain.endDate),
    tasks: tasks.map((task) => ({
      id: task.id,
      sequenceNumber: task.sequenceNumber,
      eventType: task.conditionEventType,
      minAmount: task.conditionMinAmount,
      currency: task.conditionCurrency,
      afterUs: pgTimestampToMicrosOrNull(task.conditionAfterTimestamp),
      beforeUs: pgTimestampToMicrosOrNull(task.conditionBeforeTimestamp),
    })),
  };
}

/** Loads full definitions in three queries, whatever the number of chains and tasks. */
export async function loadChainDefinitions(db: Executor, where: SQL | undefined): Promise<ChainDefinition[]> {
  const chains = await db.select().from(questChains).where(where).orderBy(asc(questChains.startDate), asc(questChains.id));
  if (chains.length === 0) return [];
  const ids = chains.map((chain) => chain.id);
  const [tasks, rewards] = await Promise.all([
    db.select().from(questTasks).where(inArray(questTasks.chainId, ids)).orderBy(asc(questTasks.chainId), asc(questTasks.sequenceNumber)),
    db.select().from(chainRewards).where(inArray(chainRewards.chainId, ids)),
  ]);
  const tasksByChain = new Map<string, TaskRow[]>();
  for (const task of tasks) {
    const list = tasksByChain.get(task.chainId);
    if (list) list.push(task);
    else tasksByChain.set(task.chainId, [task]);
  }
  const rewardByChain = new Map(rewards.map((reward) => [reward.chainId, reward]));
  return chains.map((chain) => {
    const chainTasks = tasksByChain.get(chain.id) ?? [];
    return { chain, tasks: chainTasks, reward: rewardByChain.get(chain.id) ?? null, rules: toChainRules(chain, chainTasks) };
  });
}

/** Every chain of a platform in any status (optionally only one advertiser's): the matcher's view. */
export function loadPlatformChains(db: Executor, platformId: string, advertiserId?: string) {
  const where = advertiserId
    ? and(eq(questChains.platformId, platformId), eq(questChains.advertiserId, advertiserId))
    : eq(questChains.platformId, platformId);
  return loadChainDefinitions(db, where);
}
