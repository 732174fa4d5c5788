import { randomBytes } from 'node:crypto';
import { and, asc, desc, eq, gt, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import { twinId } from '../domain/test-mode.js';
import type { ChainRules } from '../domain/walk.js';
import { seedHash } from '../rewards/verifiable-draw.js';
import type { Executor } from './client.js';
import { afterKey, type Page, type PageRequest, rowsToRead, toPage } from './keyset.js';
import { chainRewards, chainStatus, drawSeeds, questChains, questTasks, rewardPrizes } from './schema/index.js';
import { idArray } from './sql-fragments.js';

/** A chain, a task and a chain reward as stored (timestamps in epoch microseconds). */
export type ChainRow = typeof questChains.$inferSelect;
export type TaskRow = typeof questTasks.$inferSelect;
type ChainRewardRow = typeof chainRewards.$inferSelect;
export type PrizeRow = typeof rewardPrizes.$inferSelect;

/** A chain reward with its mystery-box prize table (empty for any other reward) and the hash of its current draw seed (null without prizes). */
export type ChainReward = ChainRewardRow & { prizes: PrizeRow[]; drawSeedHash: string | null };

export const CHAIN_STATUSES = chainStatus.enumValues;
export type ChainStatus = ChainRow['status'];

/** A chain with its tasks (in sequence order) and its rules in domain form: what matching reads. */
export interface MatchingChain {
  chain: ChainRow;
  tasks: TaskRow[];
  rules: ChainRules;
}

/** A chain with its tasks, its optional chain reward (with a mystery box's prizes and seed hash) and its rules. */
export interface ChainDefinition extends MatchingChain {
  reward: ChainReward | null;
}

/** A chain to store: its columns (ids and bookkeeping times are the database's), its tasks and its optional reward. */
export type NewChain = Omit<typeof questChains.$inferInsert, 'id' | 'createdAt' | 'updatedAt'> & {
  tasks: NewTask[];
  reward?: NewChainReward | null | undefined;
};
type NewTask = Omit<typeof questTasks.$inferInsert, 'id' | 'chainId'>;
type NewPrize = Omit<typeof rewardPrizes.$inferInsert, 'chainId' | 'position'>;
type NewChainReward = Omit<typeof chainRewards.$inferInsert, 'id' | 'chainId'> & { prizes?: NewPrize[] | undefined };

/** The stored rows of a chain in the form the domain's rules read them. */
function toChainRules(chain: ChainRow, tasks: readonly TaskRow[]): ChainRules {
  return {
    allowAnyOrder: chain.allowAnyOrder,
    startUs: chain.startDate,
    endUs: chain.endDate,
    timezone: chain.timezone,
    recurrence: chain.recurrence,
    tasks: tasks.map((task) => ({
      id: task.id,
      sequenceNumber: task.sequenceNumber,
      eventType: task.conditionEventType,
      minAmount: task.conditionMinAmount,
      currency: task.conditionCurrency,
      afterUs: task.conditionAfterTimestamp,
      beforeUs: task.conditionBeforeTimestamp,
      minCount: task.conditionMinCount,
      minTotal: task.conditionMinTotal,
      streak: task.conditionStreak,
    })),
  };
}

/** Loads full definitions in one statement (chains with their tasks and reward), whatever their number. */
async function loadChainDefinitions(db: Executor, where: SQL | undefined): Promise<ChainDefinition[]> {
  const chains = await db.query.questChains.findMany({ where, ...definitionQuery() });
  return chains.map(toDefinition);
}

const chainOrder = [asc(questChains.startDate), asc(questChains.id)];
const tasksInOrder = { orderBy: [asc(questTasks.sequenceNumber)] };

/** The shape of a definition's read: the chain with its tasks in order and its reward. */
const definitionQuery = () => ({
  orderBy: chainOrder,
  with: {
    tasks: tasksInOrder,
    reward: {
      with: {
        prizes: { orderBy: [asc(rewardPrizes.position)] },
        drawSeeds: { where: isNull(drawSeeds.retiredAt), columns: { seedHash: true as const } },
      },
    },
  },
});

type StoredReward = ChainRewardRow & { prizes: PrizeRow[]; drawSeeds: { seedHash: string }[] };

function toDefinition({
  tasks,
  reward,
  ...chain
}: ChainRow & { tasks: TaskRow[]; reward: StoredReward | null }): ChainDefinition {
  return { chain, tasks, reward: reward ? toChainReward(reward) : null, rules: toChainRules(chain, tasks) };
}

const toChainReward = ({ drawSeeds: seeds, ...reward }: StoredReward): ChainReward => ({
  ...reward,
  drawSeedHash: seeds[0]?.seedHash ?? null,
});

/** The chains with these ids (those that exist) as the matcher needs them: tasks and rules (no reward, prizes or seed, which matching never reads). */
export async function loadMatchingChainsByIds(tx: Executor, ids: readonly string[]): Promise<MatchingChain[]> {
  if (ids.length === 0) return [];
  const chains = await tx.query.questChains.findMany({
    where: inArray(questChains.id, [...ids]),
    orderBy: chainOrder,
    with: { tasks: tasksInOrder },
  });
  return chains.map(({ tasks, ...chain }): MatchingChain => ({ chain, tasks, rules: toChainRules(chain, tasks) }));
}

/**
 * What may change of a stored chain once created, as matching reads it: its
 * status (set with updated_at) and its places taken (admitted_users, moved
 * by the matcher's admissions). Its dates, rules and tasks are fixed at
 * creation; the claim counters (budget_spent, claims_count) move too, but
 * matching never reads them.
 */
export type ChainStamp = Pick<ChainRow, 'id' | 'status' | 'updatedAt' | 'admittedUsers'>;

/** The stamps of every chain of these users' platforms, in matching order (what the matcher reads whole of them, chain-cache.ts). */
export async function loadChainStamps(tx: Executor, userIds: readonly string[]): Promise<ChainStamp[]> {
  if (userIds.length === 0) return [];
  return tx
    .select({
      id: questChains.id,
      status: questChains.status,
      updatedAt: questChains.updatedAt,
      admittedUsers: questChains.admittedUsers,
    })
    .from(questChains)
    .where(sql`${questChains.platformId} in (select platform_id from users where id = any(${idArray(userIds)}))`)
    .orderBy(...chainOrder);
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
export async function listChainDefinitions(
  db: Executor,
  platformId: string | undefined,
  page: PageRequest,
): Promise<Page<ChainDefinition> | null> {
  // A platform's test chains are stored under its test twin (docs/test-mode.md).
  const ofListing = platformId ? inArray(questChains.platformId, [platformId, twinId(platformId)]) : undefined;
  const order = [questChains.createdAt, questChains.id] as const;
  let after: SQL | undefined;
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
  const { items: ids, hasMore } = toPage(
    rows.map((row) => row.id),
    page.limit,
  );
  if (ids.length === 0) return { items: [], hasMore };
  const byId = new Map(
    (await loadChainDefinitions(db, inArray(questChains.id, ids))).map((definition) => [definition.chain.id, definition]),
  );
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
  const reward = newReward ? await insertChainReward(db, chain!.id, newReward) : null;
  return { chain: chain!, tasks, reward, rules: toChainRules(chain!, tasks) };
}

/** The chain reward, and for a mystery box its prize table and first draw seed (whose hash is published from now on). */
async function insertChainReward(
  db: Executor,
  chainId: string,
  { prizes: newPrizes = [], ...columns }: NewChainReward,
): Promise<ChainReward> {
  const [reward] = await db
    .insert(chainRewards)
    .values({ ...columns, chainId })
    .returning();
  if (newPrizes.length === 0) return { ...reward!, prizes: [], drawSeedHash: null };
  const prizes = await db
    .insert(rewardPrizes)
    .values(newPrizes.map((prize, position) => ({ ...prize, chainId, position })))
    .returning();
  prizes.sort((a, b) => a.position - b.position);
  const drawSeedHash = await insertDrawSeed(db, chainId);
  return { ...reward!, prizes, drawSeedHash };
}

/** A new current draw seed for the chain (32 random bytes); answers its hash, the commitment published before any draw uses it. */
export async function insertDrawSeed(db: Executor, chainId: string): Promise<string> {
  const serverSeed = randomBytes(32).toString('hex');
  const [seed] = await db
    .insert(drawSeeds)
    .values({ chainId, serverSeed, seedHash: seedHash(serverSeed) })
    .returning({ seedHash: drawSeeds.seedHash });
  return seed!.seedHash;
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
