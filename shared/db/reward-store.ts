import { and, type Column, eq, inArray, isNotNull, isNull, notExists, sql } from 'drizzle-orm';
import type { ServiceUserId } from '../domain/ids.js';
import type { ChainTiming } from '../domain/recurrence.js';
import { claimableAfterHold } from '../domain/reward-hold.js';
import type { Executor } from './client.js';
import { afterKey } from './keyset.js';
import { chainProgress, chainRewards, questChains, questTasks, rewardClaims, taskCompletions } from './schema/index.js';

/**
 * A reward as granted or grantable. Chain rewards carry their chain_rewards
 * id; task rewards are identified by the task. A claim keeps a snapshot of it
 * (reward_claims.reward), so a granted reward stays as granted if the definition changes.
 */
export interface Reward {
  id?: string;
  type: string;
  name: string;
  value: number | null;
  imageUrls: string[] | null;
}

export type RewardKind = (typeof rewardClaims.$inferSelect)['kind'];

/** What a mystery box's draw gave (docs/mystery-boxes.md). */
export interface Prize {
  prizeId: string;
  name: string;
  value: number | null;
}

export interface RewardClaim {
  claimId: string;
  kind: RewardKind;
  taskId: string | null;
  chainId: string;
  reward: Reward;
  /** A mystery box's claim: the prize drawn; null for any other reward. */
  prize: Prize | null;
  claimedUs: bigint;
  /** When the claimed completion stopped standing on counting events (the reward is kept, marked reversed); null while it stands. */
  reversedUs: bigint | null;
  /** The run of a repeating chain claimed from (docs/quest-language.md); 0 in a chain that does not repeat. */
  runStartUs: bigint;
}

const chainTimingColumns = { startUs: questChains.startDate, endUs: questChains.endDate, recurrence: questChains.recurrence };

export interface ClaimableTaskReward {
  taskId: string;
  chainId: string;
  sequenceNumber: number;
  reward: Reward;
  completedUs: bigint;
  /** The completion plus the chain's reward hold (docs/reversals.md): not claimable before. */
  claimableUs: bigint;
  runStartUs: bigint;
  timing: ChainTiming;
}

export interface ClaimableChainReward {
  chainId: string;
  reward: Reward;
  /** The chain's completion plus its reward hold. */
  claimableUs: bigint;
  runStartUs: bigint;
  timing: ChainTiming;
}

/** The snapshot's stored form: the published reward's field names, and the prize a box gave. */
type RewardSnapshot = Omit<Reward, 'imageUrls'> & {
  image_urls: string[] | null;
  prize?: { prize_id: string; name: string; value: number | null };
};

const toSnapshot = ({ imageUrls, ...reward }: Reward, prize: Prize | null): RewardSnapshot => ({
  ...reward,
  image_urls: imageUrls,
  ...(prize ? { prize: { prize_id: prize.prizeId, name: prize.name, value: prize.value } } : {}),
});

function fromSnapshot(stored: Record<string, unknown>): { reward: Reward; prize: Prize | null } {
  const { id, type, name, value, image_urls, prize } = stored as unknown as RewardSnapshot;
  return {
    reward: { ...(id !== undefined ? { id } : {}), type, name, value, imageUrls: image_urls },
    prize: prize ? { prizeId: prize.prize_id, name: prize.name, value: prize.value } : null,
  };
}

const toClaim = (row: typeof rewardClaims.$inferSelect): RewardClaim => ({
  claimId: row.id,
  kind: row.kind,
  taskId: row.taskId,
  chainId: row.chainId,
  ...fromSnapshot(row.reward),
  claimedUs: row.claimedAt,
  reversedUs: row.reversedAt,
  runStartUs: row.runStartUs,
});

/** The claims with these ids, with their users (what a reward.reversed fact needs). */
export async function findClaimsByIds(
  db: Executor,
  ids: readonly string[],
): Promise<(RewardClaim & { userId: ServiceUserId })[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select()
    .from(rewardClaims)
    .where(inArray(rewardClaims.id, [...ids]));
  return rows.map((row) => ({ ...toClaim(row), userId: row.userId }));
}

/** A chain's limits as its claims read them (ClaimLimits). */
const claimLimitColumns = {
  budget: questChains.budget,
  maxClaims: questChains.maxClaimsPerReward,
  advertiserId: questChains.advertiserId,
};

/**
 * A task of the platform with its reward, the chain's reward hold and timing,
 * and the user's completions of it by run (none: not completed); null when
 * the platform has no such task.
 */
export async function findTaskReward(db: Executor, platformId: string, userId: ServiceUserId, taskId: string) {
  const rows = await db
    .select({
      timing: chainTimingColumns,
      runStartUs: taskCompletions.runStartUs,
      chainId: questTasks.chainId,
      type: questTasks.rewardType,
      name: questTasks.rewardName,
      value: questTasks.rewardValue,
      imageUrls: questTasks.rewardImageUrls,
      holdSeconds: questChains.rewardHoldSeconds,
      limits: claimLimitColumns,
      eventId: taskCompletions.eventId,
      completedUs: taskCompletions.completedAt,
    })
    .from(questTasks)
    .innerJoin(questChains, eq(questChains.id, questTasks.chainId))
    .leftJoin(taskCompletions, and(eq(taskCompletions.userId, userId), eq(taskCompletions.taskId, questTasks.id)))
    .where(and(eq(questTasks.id, taskId), eq(questChains.platformId, platformId)));
  const [row] = rows;
  if (!row) return null;
  const reward: Reward = { type: row.type, name: row.name, value: row.value, imageUrls: row.imageUrls };
  const completions = new Map<bigint, { eventId: string; completedUs: bigint }>();
  for (const { eventId, completedUs, runStartUs } of rows) {
    if (eventId !== null && completedUs !== null && runStartUs !== null) completions.set(runStartUs, { eventId, completedUs });
  }
  return { chainId: row.chainId, reward, holdSeconds: row.holdSeconds, limits: row.limits, timing: row.timing, completions };
}

/**
 * A chain of the platform with its reward (null without one), its reward hold
 * and timing, and the user's completions of it by run (`completedUs` from
 * chain_progress; absent while not completed); null when the platform has no
 * such chain.
 */
export async function findChainReward(db: Executor, platformId: string, userId: ServiceUserId, chainId: string) {
  const rows = await db
    .select({
      timing: chainTimingColumns,
      runStartUs: chainProgress.runStartUs,
      id: chainRewards.id,
      type: chainRewards.type,
      name: chainRewards.name,
      value: chainRewards.value,
      imageUrls: chainRewards.imageUrls,
      holdSeconds: questChains.rewardHoldSeconds,
      limits: claimLimitColumns,
      completedUs: chainProgress.completedAt,
    })
    .from(questChains)
    .leftJoin(chainRewards, eq(chainRewards.chainId, questChains.id))
    .leftJoin(chainProgress, and(eq(chainProgress.userId, userId), eq(chainProgress.chainId, questChains.id)))
    .where(and(eq(questChains.id, chainId), eq(questChains.platformId, platformId)));
  const [row] = rows;
  if (!row) return null;
  const completions = new Map<bigint, bigint>();
  for (const { completedUs, runStartUs } of rows)
    if (completedUs !== null && runStartUs !== null) completions.set(runStartUs, completedUs);
  const reward: Reward | null =
    row.id === null || row.type === null || row.name === null
      ? null
      : { id: row.id, type: row.type, name: row.name, value: row.value, imageUrls: row.imageUrls };
  return { reward, holdSeconds: row.holdSeconds, limits: row.limits, timing: row.timing, completions };
}

/** A chain's limits on its claims (docs/budgets.md); null: none. */
export interface ClaimLimits {
  budget: number | null;
  maxClaims: number | null;
  /** The chain's advertiser, who funds it: told when the budget runs out. */
  advertiserId: string;
}

/**
 * Takes one claim of a reward out of the chain's limits, in the claim's
 * transaction: the reward's claim counter (max_claims_per_reward), then the
 * chain's budget (its value added to budget_spent). Each is one conditional
 * update: the row lock queues concurrent claims and the condition is checked
 * again on the row each one finds, so no count ever passes its limit. Always
 * the reward's row before the chain's, so two claims never wait on each
 * other in a cycle. A chain without limits touches nothing (no lock). Answers
 * which limit refused, or null when both took it.
 */
export async function reserveClaim(
  tx: Executor,
  claim: { chainId: string; taskId: string | null; value: number; limits: ClaimLimits },
): Promise<'reward_cap_reached' | 'budget_exhausted' | null> {
  const { maxClaims, budget } = claim.limits;
  if (maxClaims !== null) {
    const counted =
      claim.taskId !== null
        ? await tx.execute(
            sql`update quest_tasks set claims_count = claims_count + 1 where id = ${claim.taskId} and claims_count < ${maxClaims} returning id`,
          )
        : await tx.execute(
            sql`update chain_rewards set claims_count = claims_count + 1 where chain_id = ${claim.chainId} and claims_count < ${maxClaims} returning id`,
          );
    if (counted.length === 0) return 'reward_cap_reached';
  }
  if (budget !== null) {
    const spent = await tx.execute(sql`
      update quest_chains set budget_spent = budget_spent + ${claim.value}
      where id = ${claim.chainId} and budget_spent + ${claim.value} <= budget returning id`);
    if (spent.length === 0) return 'budget_exhausted';
  }
  return null;
}

/**
 * A claim's day in its chain's time zone (reward_claims.claimed_day), for a
 * claim made by this transaction: the day of claimed_at's default, now(), as
 * that column keeps it (to the millisecond), so the two can never disagree.
 */
export const claimedDayOf = (chainId: string) =>
  sql<string>`(select (now()::timestamptz(3) at time zone q.timezone)::date from quest_chains q where q.id = ${chainId})`;

/**
 * Grants a reward. The unique key reward_claims_once makes a second grant of
 * it fail (the caller holds the user's lock and looked first, so it never does).
 */
export async function insertClaim(
  db: Executor,
  claim: {
    /** Chosen by the caller: a mystery box's draw is keyed by it. */
    claimId: string;
    userId: ServiceUserId;
    kind: RewardKind;
    chainId: string;
    taskId: string | null;
    reward: Reward;
    prize: Prize | null;
    /** A task claim's completion, where the walk holds it (docs/reversals.md). */
    completion: { eventId: string; completedUs: bigint } | null;
    runStartUs: bigint;
  },
): Promise<RewardClaim> {
  const [row] = await db
    .insert(rewardClaims)
    .values({
      id: claim.claimId,
      userId: claim.userId,
      kind: claim.kind,
      chainId: claim.chainId,
      taskId: claim.taskId,
      reward: toSnapshot(claim.reward, claim.prize),
      claimedDay: claimedDayOf(claim.chainId),
      completedEventId: claim.completion?.eventId ?? null,
      completedAt: claim.completion?.completedUs ?? null,
      runStartUs: claim.runStartUs,
    })
    .returning();
  return toClaim(row!);
}

/** The user's claim of a task's reward, or of the chain's reward when `taskId` is null, in one run. */
export async function findClaim(
  db: Executor,
  userId: ServiceUserId,
  chainId: string,
  taskId: string | null,
  runStartUs: bigint,
): Promise<RewardClaim | null> {
  const [row] = await db
    .select()
    .from(rewardClaims)
    .where(
      and(
        eq(rewardClaims.userId, userId),
        eq(rewardClaims.chainId, chainId),
        taskId === null ? isNull(rewardClaims.taskId) : eq(rewardClaims.taskId, taskId),
        eq(rewardClaims.runStartUs, runStartUs),
      ),
    );
  return row ? toClaim(row) : null;
}

/**
 * Where an entry sits in a user's rewards list (claimable tasks, then
 * claimable chains, then claims): its section and its sort key there. The
 * list's cursor names the entry by id, and by run for a repeating chain,
 * whose task and chain reward appear once per completed run.
 */
export type RewardCursor =
  | { section: 'task'; key: readonly [completedUs: bigint, chainId: string, sequenceNumber: number] }
  | { section: 'chain'; key: readonly [startUs: bigint, chainId: string, runStartUs: bigint] }
  | { section: 'claim'; key: readonly [claimedUs: bigint, claimId: string] };

/** One stretch of a rewards section: the rows after `after` (its section's key), at most `limit`. */
export interface RewardWindow<K> {
  after?: K | undefined;
  limit: number;
}

/**
 * Where the rewards entries named `id` (and, when given, run
 * `runStartUs`) sit for this user: a claim, a task they completed, or a
 * chain of the platform. At most two are read: more than one means the id
 * alone names several runs. A chain named without a run that the user has
 * not completed sits before its runs.
 */
export async function findRewardCursors(
  db: Executor,
  platformId: string,
  userId: ServiceUserId,
  entry: { id: string; runStartUs: bigint | undefined },
): Promise<RewardCursor[]> {
  const inRun = (column: Column) => (entry.runStartUs === undefined ? undefined : eq(column, entry.runStartUs));
  const [claim] = await db
    .select({ claimedAt: rewardClaims.claimedAt })
    .from(rewardClaims)
    .where(and(eq(rewardClaims.userId, userId), eq(rewardClaims.id, entry.id), inRun(rewardClaims.runStartUs)));
  if (claim) return [{ section: 'claim', key: [claim.claimedAt, entry.id] }];
  const tasks = await db
    .select({
      completedAt: taskCompletions.completedAt,
      chainId: taskCompletions.chainId,
      sequenceNumber: questTasks.sequenceNumber,
    })
    .from(taskCompletions)
    .innerJoin(questTasks, eq(questTasks.id, taskCompletions.taskId))
    .where(and(eq(taskCompletions.userId, userId), eq(taskCompletions.taskId, entry.id), inRun(taskCompletions.runStartUs)))
    .limit(2);
  if (tasks.length > 0)
    return tasks.map((task) => ({ section: 'task', key: [task.completedAt, task.chainId, task.sequenceNumber] }));
  // The chain with each run the user completed (none: one row, no run).
  const runs = await db
    .select({ startDate: questChains.startDate, runStartUs: chainProgress.runStartUs })
    .from(questChains)
    .leftJoin(
      chainProgress,
      and(
        eq(chainProgress.userId, userId),
        eq(chainProgress.chainId, questChains.id),
        isNotNull(chainProgress.completedAt),
        inRun(chainProgress.runStartUs),
      ),
    )
    .where(and(eq(questChains.platformId, platformId), eq(questChains.id, entry.id)))
    .limit(2);
  if (runs[0]?.runStartUs === null && entry.runStartUs !== undefined) return [];
  return runs.map((run) => ({ section: 'chain', key: [run.startDate, entry.id, run.runStartUs ?? 0n] }));
}

/** Completed tasks (of chains in any status) whose reward the user has not claimed, oldest completion first. */
export async function listClaimableTaskRewards(
  db: Executor,
  userId: ServiceUserId,
  window: RewardWindow<Extract<RewardCursor, { section: 'task' }>['key']>,
): Promise<ClaimableTaskReward[]> {
  const order = [taskCompletions.completedAt, taskCompletions.chainId, questTasks.sequenceNumber] as const;
  const claimed = db
    .select({ one: sql`1` })
    .from(rewardClaims)
    .where(
      and(
        eq(rewardClaims.userId, userId),
        eq(rewardClaims.taskId, taskCompletions.taskId),
        eq(rewardClaims.runStartUs, taskCompletions.runStartUs),
      ),
    );
  const rows = await db
    .select({
      timing: chainTimingColumns,
      runStartUs: taskCompletions.runStartUs,
      taskId: taskCompletions.taskId,
      chainId: taskCompletions.chainId,
      sequenceNumber: questTasks.sequenceNumber,
      type: questTasks.rewardType,
      name: questTasks.rewardName,
      value: questTasks.rewardValue,
      imageUrls: questTasks.rewardImageUrls,
      completedUs: taskCompletions.completedAt,
      holdSeconds: questChains.rewardHoldSeconds,
    })
    .from(taskCompletions)
    .innerJoin(questTasks, eq(questTasks.id, taskCompletions.taskId))
    .innerJoin(questChains, eq(questChains.id, taskCompletions.chainId))
    .where(and(eq(taskCompletions.userId, userId), notExists(claimed), window.after && afterKey(order, window.after)))
    .orderBy(...order)
    .limit(window.limit);
  return rows.map(({ type, name, value, imageUrls, holdSeconds, ...row }) => ({
    ...row,
    reward: { type, name, value, imageUrls },
    claimableUs: claimableAfterHold(row.completedUs, holdSeconds),
  }));
}

/** The platform's completed chains whose chain reward the user has not claimed, in chain start order. */
export async function listClaimableChainRewards(
  db: Executor,
  platformId: string,
  userId: ServiceUserId,
  window: RewardWindow<Extract<RewardCursor, { section: 'chain' }>['key']>,
): Promise<ClaimableChainReward[]> {
  // A repeating chain's runs follow each other inside it.
  const order = [questChains.startDate, questChains.id, chainProgress.runStartUs] as const;
  const claimed = db
    .select({ one: sql`1` })
    .from(rewardClaims)
    .where(
      and(
        eq(rewardClaims.userId, userId),
        eq(rewardClaims.chainId, questChains.id),
        isNull(rewardClaims.taskId),
        eq(rewardClaims.runStartUs, chainProgress.runStartUs),
      ),
    );
  const rows = await db
    .select({
      timing: chainTimingColumns,
      runStartUs: chainProgress.runStartUs,
      chainId: questChains.id,
      id: chainRewards.id,
      type: chainRewards.type,
      name: chainRewards.name,
      value: chainRewards.value,
      imageUrls: chainRewards.imageUrls,
      holdSeconds: questChains.rewardHoldSeconds,
      completedUs: chainProgress.completedAt,
    })
    .from(questChains)
    .innerJoin(chainRewards, eq(chainRewards.chainId, questChains.id))
    .innerJoin(
      chainProgress,
      and(eq(chainProgress.userId, userId), eq(chainProgress.chainId, questChains.id), isNotNull(chainProgress.completedAt)),
    )
    .where(and(eq(questChains.platformId, platformId), notExists(claimed), window.after && afterKey(order, window.after)))
    .orderBy(...order)
    .limit(window.limit);
  return rows.map(({ chainId, holdSeconds, completedUs, timing, runStartUs, ...reward }) => ({
    chainId,
    reward,
    claimableUs: claimableAfterHold(completedUs!, holdSeconds),
    runStartUs,
    timing,
  }));
}

/** The user's claims, oldest first. */
export async function listClaims(
  db: Executor,
  userId: ServiceUserId,
  window: RewardWindow<Extract<RewardCursor, { section: 'claim' }>['key']>,
): Promise<RewardClaim[]> {
  const order = [rewardClaims.claimedAt, rewardClaims.id] as const;
  const rows = await db
    .select()
    .from(rewardClaims)
    .where(and(eq(rewardClaims.userId, userId), window.after && afterKey(order, window.after)))
    .orderBy(...order)
    .limit(window.limit);
  return rows.map(toClaim);
}
