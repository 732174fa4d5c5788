import { and, asc, eq, gt, lt, sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import { decodeTimestampUs, type DriverRow } from './driver-row.js';
import { pendingEvents, taskCompletions, users } from './schema/index.js';
import { fromUs, idArray, instant, nullableIdArray, numberArray, occurredUsColumn, textArray } from './sql-fragments.js';

/**
 * The matcher's SQL about users and their progress, set-based: every function
 * here is one statement, whatever the number of users in the batch.
 */

/** A registered user as §4 needs it: its platform, its id there, and its advertiser links. */
export interface MatchUserRow {
  id: string;
  platformId: string;
  platformUserId: string;
  /** advertiser id -> the advertiser user id linked to this user */
  links: Map<string, string>;
}

/** Maps each (sender, sender's user id) to the registered users its events count for (§4): the platform's own user, or every linked user. */
export async function resolveEventUsers(
  tx: Executor,
  subjects: readonly { providerId: string; userId: string }[],
): Promise<{ providerId: string; userId: string; targetId: string }[]> {
  if (subjects.length === 0) return [];
  const rows = await tx.execute<{ provider_id: string; user_id: string; target_id: string }>(sql`
    with s as (select * from unnest(${idArray(subjects.map((s) => s.providerId))}, ${textArray(subjects.map((s) => s.userId))}) as s(provider_id, user_id))
    select s.provider_id, s.user_id, u.id as target_id
    from s join users u on u.platform_id = s.provider_id and u.platform_user_id = s.user_id
    union all
    select s.provider_id, s.user_id, l.user_id as target_id
    from s join account_links l on l.advertiser_id = s.provider_id and l.advertiser_user_id = s.user_id`);
  return rows.map((row) => ({ providerId: row.provider_id, userId: row.user_id, targetId: row.target_id }));
}

/**
 * Serialises matching per user across transactions, workers and processes.
 * One statement takes every lock in id order, so two batches sharing users
 * cannot deadlock; the locks go with the transaction.
 */
export async function lockUsers(tx: Executor, userIds: readonly string[]): Promise<void> {
  if (userIds.length === 0) return;
  await tx.execute(sql`
    select count(pg_advisory_xact_lock(hashtextextended('user:' || id::text, 0)))
    from (select id from unnest(${idArray(userIds)}) as id order by id) ordered`);
}

/**
 * The users with their links, read under their locks. Users in `evaluateIds`
 * have their re-evaluation flag cleared in the same statement: a flag raised
 * after this statement (a new link, a new chain) is seen by a later evaluation.
 */
export async function loadMatchUsers(tx: Executor, userIds: readonly string[], evaluateIds: readonly string[]): Promise<MatchUserRow[]> {
  if (userIds.length === 0) return [];
  const rows = await tx.execute<{ id: string; platform_id: string; platform_user_id: string; links: string | [string, string][] }>(sql`
    with cleared as (
      update users set needs_evaluation = false where id = any(${idArray(evaluateIds)}) and needs_evaluation
    )
    select u.id, u.platform_id, u.platform_user_id,
           coalesce((select json_agg(json_build_array(l.advertiser_id, l.advertiser_user_id)) from account_links l where l.user_id = u.id), '[]'::json) as links
    from users u where u.id = any(${idArray(userIds)})`);
  return rows.map((row) => ({
    id: row.id,
    platformId: row.platform_id,
    platformUserId: row.platform_user_id,
    links: new Map(typeof row.links === 'string' ? (JSON.parse(row.links) as [string, string][]) : row.links),
  }));
}

export interface StoredCompletion {
  eventId: string;
  completedUs: bigint;
}

/** What is stored for one (user, chain): the walk's mark and its completions by task id. */
export interface StoredWalk {
  userId: string;
  chainId: string;
  mark: { occurredUs: bigint; id: string } | null;
  completions: Map<string, StoredCompletion>;
}

type WalkRow = {
  user_id: string;
  chain_id: string;
  mark_us: string | null;
  mark_event_id: string | null;
  task_id: string | null;
  event_id: string | null;
  completed_us: string | null;
};

/** Every stored walk of the given users, completions included: one row per completion (or per walk without one). */
export async function loadWalks(tx: Executor, userIds: readonly string[]): Promise<StoredWalk[]> {
  if (userIds.length === 0) return [];
  const rows = await tx.execute<WalkRow>(sql`
    select cp.user_id, cp.chain_id, cp.mark_us::text as mark_us, cp.mark_event_id,
           tc.task_id, tc.event_id, ${occurredUsColumn(sql`tc.completed_at`)} as completed_us
    from chain_progress cp
    left join task_completions tc on tc.user_id = cp.user_id and tc.chain_id = cp.chain_id
    where cp.user_id = any(${idArray(userIds)})`);
  const walks = new Map<string, StoredWalk>();
  for (const row of rows) {
    const key = `${row.user_id}/${row.chain_id}`;
    let walk = walks.get(key);
    if (!walk) {
      const mark = row.mark_us === null || row.mark_event_id === null ? null : { occurredUs: BigInt(row.mark_us), id: row.mark_event_id };
      walk = { userId: row.user_id, chainId: row.chain_id, mark, completions: new Map() };
      walks.set(key, walk);
    }
    if (row.task_id !== null) walk.completions.set(row.task_id, { eventId: row.event_id!, completedUs: BigInt(row.completed_us!) });
  }
  return [...walks.values()];
}

export interface CompletionWrite {
  userId: string;
  chainId: string;
  taskId: string;
  eventId: string;
  completedUs: bigint;
}

/** New completions, and completions moved to an earlier event by a late one (§5); never deleted. */
export async function saveCompletions(tx: Executor, writes: readonly CompletionWrite[]): Promise<void> {
  if (writes.length === 0) return;
  await tx.execute(sql`
    insert into task_completions (user_id, task_id, chain_id, event_id, completed_at)
    select r.u, r.t, r.c, r.e, ${fromUs(sql`r.us`)}
    from unnest(${idArray(writes.map((w) => w.userId))}, ${idArray(writes.map((w) => w.taskId))}, ${idArray(writes.map((w) => w.chainId))},
                ${idArray(writes.map((w) => w.eventId))}, ${numberArray(writes.map((w) => w.completedUs), 'bigint')}) as r(u, t, c, e, us)
    on conflict (user_id, task_id) do update
      set event_id = excluded.event_id, completed_at = excluded.completed_at, recorded_at = now()`);
}

/**
 * Stamps the users whose progress changed, and answers the stamps stored. A
 * stamp is the server clock at this statement, but always after the user's
 * previous stamp: the statement runs under the user's lock and row lock, so
 * stamps increase in commit order and a client resuming `since` a stamp
 * misses no later commit (now() would be the transaction's start, which a
 * transaction that waited for the lock could commit after a newer stamp).
 */
export async function stampUsers(tx: Executor, userIds: readonly string[]): Promise<Map<string, bigint>> {
  if (userIds.length === 0) return new Map();
  const rows = await tx.execute<{ id: string; stamp: string }>(sql`
    update users
    set progress_changed_at = greatest(date_trunc('milliseconds', clock_timestamp()), progress_changed_at + interval '1 millisecond')
    where id = any(${idArray(userIds)})
    returning id, progress_changed_at::text as stamp`);
  return new Map(rows.map((row) => [row.id, decodeTimestampUs(users.progressChangedAt, row.stamp)]));
}

export interface ChainProgressWrite {
  userId: string;
  chainId: string;
  completedTasks: number;
  totalTasks: number;
  completedUs: bigint | null;
  mark: { occurredUs: bigint; id: string } | null;
  /** The user's new stamp when the completions changed; null keeps the stored one. */
  changedUs: bigint | null;
}

/** The summary and the walk mark of each (user, chain), in one statement. */
export async function saveChainProgress(tx: Executor, writes: readonly ChainProgressWrite[]): Promise<void> {
  if (writes.length === 0) return;
  await tx.execute(sql`
    insert into chain_progress (user_id, chain_id, completed_tasks, total_tasks, completed_at, mark_us, mark_event_id, updated_at)
    select r.u, r.c, r.done, r.total, ${fromUs(sql`r.done_us`)}, r.mark_us, r.mark_id, ${fromUs(sql`r.changed_us`)}
    from unnest(${idArray(writes.map((w) => w.userId))}, ${idArray(writes.map((w) => w.chainId))},
                ${numberArray(writes.map((w) => w.completedTasks), 'int')}, ${numberArray(writes.map((w) => w.totalTasks), 'int')},
                ${numberArray(writes.map((w) => w.completedUs), 'bigint')}, ${numberArray(writes.map((w) => w.mark?.occurredUs ?? null), 'bigint')},
                ${nullableIdArray(writes.map((w) => w.mark?.id ?? null))}, ${numberArray(writes.map((w) => w.changedUs), 'bigint')})
      as r(u, c, done, total, done_us, mark_us, mark_id, changed_us)
    on conflict (user_id, chain_id) do update
      set completed_tasks = excluded.completed_tasks, total_tasks = excluded.total_tasks, completed_at = excluded.completed_at,
          mark_us = excluded.mark_us, mark_event_id = excluded.mark_event_id,
          updated_at = coalesce(excluded.updated_at, chain_progress.updated_at)`);
}

/** A platform user as GET active shows them: registration, progress stamp, completions and claims in the chains asked about. */
export interface ReadUserState {
  id: string;
  registeredUs: bigint;
  /** The live-updates baseline: the latest change of the user's progress, null if none ever. */
  progressChangedUs: bigint | null;
  /** completed_at (epoch µs) by task id. */
  completedAt: Map<string, bigint>;
  claimedTasks: Set<string>;
  claimedChains: Set<string>;
}

type ReadUserRow = DriverRow<Pick<typeof users.$inferSelect, 'id' | 'createdAt' | 'progressChangedAt'>> & {
  /** [task id, completed_at] pairs; the driver may hand json over unparsed (drizzle configures postgres.js that way). */
  completions: string | [string, string][];
  /** [chain id, task id (null: the chain reward)] pairs. */
  claims: string | [string, string | null][];
};

const fromJson = <T>(value: string | T): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

/**
 * The user with their completions and claims in `chainIds`, in one statement
 * (the read's only one while definitions are cached); null for a user the
 * platform has not registered.
 */
export async function loadReadUserState(
  db: Executor,
  platformId: string,
  platformUserId: string,
  chainIds: readonly string[],
): Promise<ReadUserState | null> {
  const chains = idArray(chainIds);
  const [row] = await db.execute<ReadUserRow>(sql`
    select u.id, u.created_at as "createdAt", u.progress_changed_at as "progressChangedAt",
      coalesce((select json_agg(json_build_array(c.task_id, c.completed_at::text)) from task_completions c
                where c.user_id = u.id and c.chain_id = any(${chains})), '[]'::json) as completions,
      coalesce((select json_agg(json_build_array(r.chain_id, r.task_id)) from reward_claims r
                where r.user_id = u.id and r.chain_id = any(${chains})), '[]'::json) as claims
    from users u
    where u.platform_id = ${platformId} and u.platform_user_id = ${platformUserId}`);
  if (!row) return null;
  const state: ReadUserState = {
    id: row.id,
    registeredUs: decodeTimestampUs(users.createdAt, row.createdAt),
    progressChangedUs: row.progressChangedAt === null ? null : decodeTimestampUs(users.progressChangedAt, row.progressChangedAt),
    completedAt: new Map(),
    claimedTasks: new Set(),
    claimedChains: new Set(),
  };
  for (const [taskId, completedAt] of fromJson(row.completions)) {
    state.completedAt.set(taskId, decodeTimestampUs(taskCompletions.completedAt, completedAt));
  }
  for (const [chainId, taskId] of fromJson(row.claims)) {
    if (taskId === null) state.claimedChains.add(chainId);
    else state.claimedTasks.add(taskId);
  }
  return state;
}

/**
 * Work still waiting for the matcher, as the reconciler reads it: one
 * transaction-scoped advisory lock (so only one worker at a time reconciles),
 * then pages of pending events and of users flagged for re-evaluation.
 */
export async function tryReconcileLock(tx: Executor, lockKey: number): Promise<boolean> {
  const [row] = await tx.execute<{ locked: boolean }>(sql`select pg_try_advisory_xact_lock(${lockKey}) as locked`);
  return row?.locked === true;
}

export type PendingEventKey = Pick<typeof pendingEvents.$inferSelect, 'receivedAt' | 'eventId'>;

/** Pending events received more than `minAgeMs` ago, oldest first, after the key `after` (keyset paging). */
export async function pagePendingEvents(
  tx: Executor,
  options: { minAgeMs: number; after: PendingEventKey | null; limit: number },
): Promise<PendingEventKey[]> {
  const { after } = options;
  return tx
    .select({ receivedAt: pendingEvents.receivedAt, eventId: pendingEvents.eventId })
    .from(pendingEvents)
    .where(and(
      lt(pendingEvents.receivedAt, sql`now() - make_interval(secs => ${options.minAgeMs / 1000})`),
      after ? sql`(${pendingEvents.receivedAt}, ${pendingEvents.eventId}) > (${instant(after.receivedAt)}, ${after.eventId}::uuid)` : undefined,
    ))
    .orderBy(asc(pendingEvents.receivedAt), asc(pendingEvents.eventId))
    .limit(options.limit);
}

/** Ids of users flagged for re-evaluation, in id order, after `afterId` (keyset paging). */
export async function pageUsersToEvaluate(tx: Executor, options: { afterId: string | null; limit: number }): Promise<string[]> {
  const rows = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.needsEvaluation, true), options.afterId ? gt(users.id, options.afterId) : undefined))
    .orderBy(asc(users.id))
    .limit(options.limit);
  return rows.map((row) => row.id);
}
