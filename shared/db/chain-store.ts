import { and, asc, desc, eq, gt, inArray, sql, type SQL } from 'drizzle-orm';
import type { ChainRules } from '../domain/progress.js';
import type { Executor } from './client.js';
import { afterKey, rowsToRead, toPage, type Page, type PageRequest } from './keyset.js';
import { chainRewards, chainStatus, questChains, questTasks } from './schema/index.js';

/** A chain, a task and a chain reward as stored (timestamps in epoch microseconds). */
export type ChainRow = typeof questChains.$inferSelect;
export type TaskRow = typeof questTasks.$inferSelect;
export type ChainRewardRow = typeof chainRewards.$inferSelect;

export const CHAIN_STATUSES = chainStatus.enumValues;
export type ChainStatus = ChainRow['status'];

/** A chain with its tasks (in sequence order) and optional chain reward, plus its rules in domain form. */
export interface ChainDefinition {
  chain: ChainRow;
  tasks: TaskRow[];
  reward: ChainRewardRow | null;
  rules: ChainRules;
}

/** A chain to store: its columns (ids and bookkeeping times are the database's), its tasks and its optional reward. */
export type NewChain = Omit<typeof questChains.$inferInsert, 'id' | 'createdAt' | 'updatedAt'> & {
  tasks: NewTask[];
  reward?: NewChainReward | null | undefined;
};
export type NewTask = Omit<typeof questTasks.$inferInsert, 'id' | 'chainId'>;
export type NewChainReward = Omit<typeof chainRewards.$inferInsert, 'id' | 'chainId'>;

/** The stored rows of a chain in the form the domain's rules read them. */
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

/** A platform's chains with status `active` that have not ended (those not yet open included). */
export function loadLiveChains(db: Executor, platformId: string): Promise<ChainDefinition[]> {
  return loadChainDefinitions(
    db,
    and(eq(questChains.platformId, platformId), eq(questChains.status, 'active'), gt(questChains.endDate, sql`now()`)),
  );
}

export async function findChainDefinition(db: Executor, id: string): Promise<ChainDefinition | null> {
  const [definition] = await loadChainDefinitions(db, eq(questChains.id, id));
  return definition ?? null;
}

/**
 * A page of chains (every chain, or one platform's), newest first: the page's
 * ids by keyset, then their definitions in one statement. Null when the
 * cursor names no chain of the listing.
 */
export async function listChainDefinitions(db: Executor, platformId: string | undefined, page: PageRequest): Promise<Page<ChainDefinition> | null> {
  const ofListing = platformId ? eq(questChains.platformId, platformId) : undefined;
  const order = [questChains.createdAt, questChains.id] as const;
  let after;
  if (page.startingAfter !== undefined) {
    const [cursor] = await db
      .select({ createdAt: questChains.createdAt, id: questChains.id })
      .from(questChains)
      .where(and(ofListing, eq(questChains.id, page.startingAfter)));
    if (!cursor) return null;
    after = afterKey(order, [cursor.createdAt, cursor.id], 'desc');
  }
  const rows = await db
    .select({ id: questChains.id })
    .from(questChains)
    .where(and(ofListing, after))
    .orderBy(...order.map((column) => desc(column)))
    .limit(rowsToRead(page.limit));
  const { items: ids, hasMore } = toPage(rows.map((row) => row.id), page.limit);
  if (ids.length === 0) return { items: [], hasMore };
  const byId = new Map((await loadChainDefinitions(db, inArray(questChains.id, ids))).map((definition) => [definition.chain.id, definition]));
  return { items: ids.flatMap((id) => byId.get(id) ?? []), hasMore };
}

/** Stores the chain, its tasks and its reward (call it inside a transaction: three statements). */
export async function insertChain(db: Executor, input: NewChain): Promise<ChainDefinition> {
  const { tasks: newTasks, reward: newReward, ...columns } = input;
  const [chain] = await db.insert(questChains).values(columns).returning();
  const tasks = await db
    .insert(questTasks)
    .values(newTasks.map((task) => ({ ...task, chainId: chain!.id })))
    .returning();
  tasks.sort((a, b) => a.sequenceNumber - b.sequenceNumber);
  const reward = newReward ? (await db.insert(chainRewards).values({ ...newReward, chainId: chain!.id }).returning())[0]! : null;
  return { chain: chain!, tasks, reward, rules: toChainRules(chain!, tasks) };
}

/** False when there is no such chain. */
export async function updateChainStatus(db: Executor, id: string, status: ChainStatus): Promise<boolean> {
  const updated = await db
    .update(questChains)
    .set({ status, updatedAt: sql`now()` })
    .where(eq(questChains.id, id))
    .returning({ id: questChains.id });
  return updated.length > 0;
}
