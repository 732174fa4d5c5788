import { and, asc, eq, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { type chainRewards, questChains, questTasks } from '../../db/schema/index.js';
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
    startUs: chain.startDate,
    endUs: chain.endDate,
    tasks: tasks.map((task) => ({
      id: task.id,
      sequenceNumber: task.sequenceNumber,
      eventType: task.conditionEventType,
      minAmount: task.conditionMinAmount,
      currency: task.conditionCurrency,
      afterUs: task.conditionAfterTimestamp,
      beforeUs: task.conditionBeforeTimestamp,
    })),
  };
}

/** Loads full definitions in one statement (chains with their tasks and reward), whatever their number. */
export async function loadChainDefinitions(db: Executor, where: SQL | undefined): Promise<ChainDefinition[]> {
  const chains = await db.query.questChains.findMany({
    where,
    orderBy: [asc(questChains.startDate), asc(questChains.id)],
    with: { tasks: { orderBy: [asc(questTasks.sequenceNumber)] }, reward: true },
  });
  return chains.map(({ tasks, reward, ...chain }) => ({ chain, tasks, reward: reward ?? null, rules: toChainRules(chain, tasks) }));
}

/** Every chain of a platform in any status (optionally only one advertiser's): the matcher's view. */
export function loadPlatformChains(db: Executor, platformId: string, advertiserId?: string) {
  const where = advertiserId
    ? and(eq(questChains.platformId, platformId), eq(questChains.advertiserId, advertiserId))
    : eq(questChains.platformId, platformId);
  return loadChainDefinitions(db, where);
}
