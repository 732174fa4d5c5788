import { sql } from 'drizzle-orm';
import { appendTo } from '../collections.js';
import type { SenderUserId, ServiceUserId } from '../domain/ids.js';
import { inRun } from '../domain/recurrence.js';
import type { StoredTallies, Tally } from '../domain/tally.js';
import type { Hold } from '../domain/walk.js';
import { walkKey } from '../domain/walk-key.js';
import type { Executor } from './client.js';
import { type DriverRow, decodeTimestampUs, fromJson } from './driver-row.js';
import { type chainProgress, type rewardClaims, taskCompletions, users } from './schema/index.js';
import { booleanArray, fromUs, idArray, nullableIdArray, numberArray, occurredUsColumn, textArray } from './sql-fragments.js';
import { type TalliesJson, talliesFromJson, talliesToJson, tallyFromJson } from './tally-column.js';

/**
 * The SQL about users' progress, set-based: every function here is one
 * statement, whatever the number of users in the batch.
 */

type UserColumns = typeof users.$inferSelect;
type CompletionColumns = typeof taskCompletions.$inferSelect;

interface StoredCompletion {
  eventId: string;
  completedUs: bigint;
  /** Kept only by its claim's hold (docs/reversals.md). */
  held: boolean;
}

/** What is stored for one (user, chain): the walk's mark, its completions by task id, and how many times a completion was undone. */
export interface StoredWalk {
  userId: ServiceUserId;
  chainId: string;
  /** The run of a repeating chain (docs/quest-language.md); 0 in a chain that does not repeat. */
  runStartUs: bigint;
  mark: { occurredUs: bigint; id: string } | null;
  completions: Map<string, StoredCompletion>;
  generation: number;
  /** Counted, summed and streak tasks' tallies (docs/quest-language.md); null in other chains. */
  tallies: StoredTallies | null;
}

/**
 * One row of loadWalks: a walk (its completion columns null) or one of its
 * completions (its walk columns null). `completedUs` is `completed_at` in
 * epoch microseconds (occurredUsColumn).
 */
type WalkRow = DriverRow<
  { [K in 'markUs' | 'markEventId' | 'generation' | 'tallies']: (typeof chainProgress.$inferSelect)[K] | null } & Pick<
    typeof chainProgress.$inferSelect,
    'userId' | 'chainId'
  > & {
      [K in 'taskId' | 'eventId' | 'held']: CompletionColumns[K] | null;
    } & { completedUs: bigint | null; runStartUs: string }
>;

/**
 * Every stored walk of the given users, completions included. The walks and
 * the completions are read as two index range scans by user (each table's
 * primary key starts with user_id) and put together here: joined in SQL on
 * (user, chain), the planner hashed the whole task_completions table for
 * every batch (a seq scan that grows with every user's progress).
 */
export async function loadWalks(tx: Executor, userIds: readonly ServiceUserId[]): Promise<StoredWalk[]> {
  if (userIds.length === 0) return [];
  const ids = idArray(userIds);
  const rows = await tx.execute<WalkRow>(sql`
    select cp.user_id as "userId", cp.chain_id as "chainId", cp.mark_us::text as "markUs", cp.mark_event_id as "markEventId", cp.generation, cp.tallies,
           null::uuid as "taskId", null::uuid as "eventId", null::text as "completedUs", null::boolean as held, cp.period_start_us::text as "runStartUs"
    from chain_progress cp where cp.user_id = any(${ids})
    union all
    select tc.user_id, tc.chain_id, null, null, null, null, tc.task_id, tc.event_id, ${occurredUsColumn(sql`tc.completed_at`)}, tc.held, tc.period_start_us::text
    from task_completions tc where tc.user_id = any(${ids})`);
  const walks = new Map<string, StoredWalk>();
  for (const row of rows) {
    if (row.taskId !== null) continue;
    const mark = row.markUs === null || row.markEventId === null ? null : { occurredUs: BigInt(row.markUs), id: row.markEventId };
    const runStartUs = BigInt(row.runStartUs);
    walks.set(walkKey(row.userId, row.chainId, runStartUs), {
      userId: row.userId,
      chainId: row.chainId,
      runStartUs,
      mark,
      completions: new Map(),
      generation: row.generation ?? 0,
      tallies: row.tallies === null ? null : talliesFromJson(fromJson(row.tallies)),
    });
  }
  // A completion belongs to its walk's row; one without a row (none is written so) is not part of any walk.
  for (const row of rows) {
    if (row.taskId === null) continue;
    walks
      .get(walkKey(row.userId, row.chainId, BigInt(row.runStartUs)))
      ?.completions.set(row.taskId, { eventId: row.eventId!, completedUs: BigInt(row.completedUs!), held: row.held === true });
  }
  return [...walks.values()];
}

export interface CompletionWrite {
  userId: ServiceUserId;
  chainId: string;
  runStartUs: bigint;
  taskId: string;
  eventId: string;
  completedUs: bigint;
  /** completedUs less the user's joining of the chain or run (chain-view.ts, joinedUs): what the chain stats' medians read. */
  sinceJoinedUs: bigint;
  held: boolean;
}

/** New completions, completions moved to another event (§5), and completions now held or no longer held (docs/reversals.md). */
export async function saveCompletions(tx: Executor, writes: readonly CompletionWrite[]): Promise<void> {
  if (writes.length === 0) return;
  await tx.execute(sql`
    insert into task_completions (user_id, task_id, chain_id, event_id, completed_at, since_joined_us, held, period_start_us)
    select r.u, r.t, r.c, r.e, ${fromUs(sql`r.us`)}, r.since_joined, r.held, r.run_start
    from unnest(${idArray(writes.map((w) => w.userId))}, ${idArray(writes.map((w) => w.taskId))}, ${idArray(writes.map((w) => w.chainId))},
                ${idArray(writes.map((w) => w.eventId))}, ${numberArray(
                  writes.map((w) => w.completedUs),
                  'bigint',
                )},
                ${numberArray(
                  writes.map((w) => w.sinceJoinedUs),
                  'bigint',
                )},
                ${booleanArray(writes.map((w) => w.held))}, ${numberArray(
                  writes.map((w) => w.runStartUs),
                  'bigint',
                )}) as r(u, t, c, e, us, since_joined, held, run_start)
    on conflict (user_id, task_id, period_start_us) do update
      set event_id = excluded.event_id, completed_at = excluded.completed_at, since_joined_us = excluded.since_joined_us, held = excluded.held, recorded_at = now()`);
}

/** Completions undone: their events were reversed and nothing else completes their tasks (docs/reversals.md). */
export async function deleteCompletions(
  tx: Executor,
  rows: readonly { userId: ServiceUserId; taskId: string; runStartUs: bigint }[],
): Promise<void> {
  if (rows.length === 0) return;
  await tx.execute(sql`
    delete from task_completions c
    using unnest(${idArray(rows.map((r) => r.userId))}, ${idArray(rows.map((r) => r.taskId))}, ${numberArray(
      rows.map((r) => r.runStartUs),
      'bigint',
    )}) as r(u, t, p)
    where c.user_id = r.u and c.task_id = r.t and c.period_start_us = r.p`);
}

/** Which of these users have a task completed by one of these events (by the primary key's user prefix: no index on event_id). */
export async function usersCompletedBy(
  tx: Executor,
  userIds: readonly ServiceUserId[],
  eventIds: readonly string[],
): Promise<ServiceUserId[]> {
  if (userIds.length === 0 || eventIds.length === 0) return [];
  const rows = await tx.execute<{ userId: ServiceUserId }>(sql`
    select distinct user_id as "userId" from task_completions
    where user_id = any(${idArray(userIds)}) and event_id = any(${idArray(eventIds)})`);
  return rows.map((row) => row.userId);
}

/**
 * Which of these users keep tallies in some chain (docs/quest-language.md): a
 * reversed event of theirs may have been counted toward a task without
 * completing it, so only a new walk knows what its reversal changes.
 */
export async function usersWithTallies(tx: Executor, userIds: readonly ServiceUserId[]): Promise<ServiceUserId[]> {
  if (userIds.length === 0) return [];
  const rows = await tx.execute<{ userId: ServiceUserId }>(sql`
    select distinct user_id as "userId" from chain_progress
    where user_id = any(${idArray(userIds)}) and tallies is not null`);
  return rows.map((row) => row.userId);
}

/** The holds of the users' task claims (shared/domain/walk.ts, Hold), by `user/chain`. */
export async function loadClaimHolds(tx: Executor, userIds: readonly ServiceUserId[]): Promise<Map<string, Hold[]>> {
  const holds = new Map<string, Hold[]>();
  if (userIds.length === 0) return holds;
  const rows = await tx.execute<{
    userId: ServiceUserId;
    chainId: string;
    taskId: string;
    eventId: string;
    completedUs: string;
    runStartUs: string;
  }>(sql`
    select user_id as "userId", chain_id as "chainId", task_id as "taskId", completed_event_id as "eventId",
           ${occurredUsColumn(sql`completed_at`)} as "completedUs", period_start_us::text as "runStartUs"
    from reward_claims
    where user_id = any(${idArray(userIds)}) and task_id is not null and completed_event_id is not null`);
  for (const row of rows) {
    appendTo(holds, walkKey(row.userId, row.chainId, BigInt(row.runStartUs)), {
      taskId: row.taskId,
      at: { occurredUs: BigInt(row.completedUs), id: row.eventId },
      kind: 'claim',
    } satisfies Hold);
  }
  return holds;
}

/** A claim whose completion stopped or started standing on counting events: a task's completion became held or not, a chain's completion was undone or made again. */
export interface ClaimStanding {
  userId: ServiceUserId;
  chainId: string;
  runStartUs: bigint;
  /** null: the chain reward's claim. */
  taskId: string | null;
  reversed: boolean;
}

/** The claims a statement of markClaimsReversed changed: newly marked reversed, and no longer marked. */
export interface ClaimMarks {
  reversed: string[];
  restored: string[];
}

/**
 * Marks the claims reversed (or no longer reversed), and answers the ids of
 * the claims this statement newly marked reversed (for their reward.reversed
 * facts and the ledger's debits, §18) and of those whose mark it cleared
 * (the ledger credits them back). A standing without a claim changes nothing.
 */
export async function markClaimsReversed(tx: Executor, standings: readonly ClaimStanding[]): Promise<ClaimMarks> {
  if (standings.length === 0) return { reversed: [], restored: [] };
  const rows = await tx.execute<{ id: string; reversed: boolean }>(sql`
    update reward_claims c
    set reversed_at = case when r.reversed then now() end
    from unnest(${idArray(standings.map((s) => s.userId))}, ${idArray(standings.map((s) => s.chainId))},
                ${nullableIdArray(standings.map((s) => s.taskId))}, ${booleanArray(standings.map((s) => s.reversed))},
                ${numberArray(
                  standings.map((s) => s.runStartUs),
                  'bigint',
                )})
      as r(u, c, t, reversed, p)
    where c.user_id = r.u and c.chain_id = r.c and c.task_id is not distinct from r.t and c.period_start_us = r.p
      and (c.reversed_at is null) = r.reversed
    returning c.id, r.reversed`);
  return {
    reversed: rows.filter((row) => row.reversed).map((row) => row.id),
    restored: rows.filter((row) => !row.reversed).map((row) => row.id),
  };
}

/**
 * Stamps the users whose progress changed, and answers the stamps stored. A
 * stamp is the server clock at this statement, but always after the user's
 * previous stamp: the statement runs under the user's lock and row lock, so
 * stamps increase in commit order and a client resuming `since` a stamp
 * misses no later commit (now() would be the transaction's start, which a
 * transaction that waited for the lock could commit after a newer stamp).
 */
export async function stampUsers(tx: Executor, userIds: readonly ServiceUserId[]): Promise<Map<string, bigint>> {
  if (userIds.length === 0) return new Map();
  // greatest() skips a null previous stamp, so the stored stamp is never null here. A stamped user's walks are
  // written in this transaction too: their walks_version is set in the same row version, which the triggers of
  // 0015 then leave alone (one new users row per user and batch, not two).
  const rows = await tx.execute<
    DriverRow<Pick<UserColumns, 'id'> & { progressChangedAt: NonNullable<UserColumns['progressChangedAt']> }>
  >(sql`
    update users
    set progress_changed_at = greatest(date_trunc('milliseconds', clock_timestamp()), progress_changed_at + interval '1 millisecond'),
        walks_version = pg_current_xact_id()::text::bigint
    where id = any(${idArray(userIds)})
    returning id, progress_changed_at::text as "progressChangedAt"`);
  return new Map(rows.map((row) => [row.id, decodeTimestampUs(users.progressChangedAt, row.progressChangedAt)]));
}

/**
 * The walks version this transaction gives every user whose walks it writes
 * (its transaction id, set by the triggers of 0015): what a worker keeps
 * beside the walks it wrote (core/matching/walk-cache.ts).
 */
export async function writerWalksVersion(tx: Executor): Promise<bigint> {
  const [row] = await tx.execute<{ version: string }>(sql`select pg_current_xact_id()::text as version`);
  return BigInt(row!.version);
}

export interface ChainProgressWrite {
  userId: ServiceUserId;
  chainId: string;
  runStartUs: bigint;
  completedTasks: number;
  totalTasks: number;
  completedUs: bigint | null;
  /** The earliest of the walk's completions (held ones included); null while it has none. Daily starts count it. */
  firstCompletedUs: bigint | null;
  mark: { occurredUs: bigint; id: string } | null;
  /**
   * The completions changed: updated_at takes the stamp `stampUsers` gave the
   * user earlier in this transaction (read in the statement, so the two can go
   * in one round trip); false keeps the stored one.
   */
  takesStamp: boolean;
  /** That stamp, once the batch knows it (what webhook facts carry); null when it takes none. */
  changedUs: bigint | null;
  generation: number;
  tallies: StoredTallies | null;
}

/** The summary and the walk mark of each (user, chain), in one statement. */
export async function saveChainProgress(tx: Executor, writes: readonly ChainProgressWrite[]): Promise<void> {
  if (writes.length === 0) return;
  await tx.execute(sql`
    insert into chain_progress (user_id, chain_id, completed_tasks, total_tasks, completed_at, first_completed_at, mark_us, mark_event_id, updated_at, generation, tallies, period_start_us)
    select r.u, r.c, r.done, r.total, ${fromUs(sql`r.done_us`)}, ${fromUs(sql`r.first_us`)}, r.mark_us, r.mark_id,
           case when r.takes_stamp then (select u.progress_changed_at from users u where u.id = r.u) end, r.generation, r.tallies::jsonb, r.run_start
    from unnest(${idArray(writes.map((w) => w.userId))}, ${idArray(writes.map((w) => w.chainId))},
                ${numberArray(
                  writes.map((w) => w.completedTasks),
                  'int',
                )}, ${numberArray(
                  writes.map((w) => w.totalTasks),
                  'int',
                )},
                ${numberArray(
                  writes.map((w) => w.completedUs),
                  'bigint',
                )}, ${numberArray(
                  writes.map((w) => w.firstCompletedUs),
                  'bigint',
                )},
                ${numberArray(
                  writes.map((w) => w.mark?.occurredUs ?? null),
                  'bigint',
                )},
                ${nullableIdArray(writes.map((w) => w.mark?.id ?? null))}, ${booleanArray(writes.map((w) => w.takesStamp))},
                ${numberArray(
                  writes.map((w) => w.generation),
                  'int',
                )}, ${textArray(writes.map((w) => (w.tallies === null ? null : JSON.stringify(talliesToJson(w.tallies)))))},
                ${numberArray(
                  writes.map((w) => w.runStartUs),
                  'bigint',
                )})
      as r(u, c, done, total, done_us, first_us, mark_us, mark_id, takes_stamp, generation, tallies, run_start)
    on conflict (user_id, chain_id, period_start_us) do update
      set completed_tasks = excluded.completed_tasks, total_tasks = excluded.total_tasks, completed_at = excluded.completed_at, first_completed_at = excluded.first_completed_at,
          mark_us = excluded.mark_us, mark_event_id = excluded.mark_event_id, generation = excluded.generation, tallies = excluded.tallies,
          updated_at = coalesce(excluded.updated_at, chain_progress.updated_at)`);
}

/** A platform user as GET active shows them: registration, progress stamp, completions and claims in the chains asked about. */
export interface ReadUserState {
  id: ServiceUserId;
  registeredUs: bigint;
  /** The live-updates baseline: the latest change of the user's progress, null if none ever. */
  progressChangedUs: bigint | null;
  /** completed_at (epoch µs) by task id within its run (inRun: the task id in a chain that does not repeat). */
  completedAt: Map<string, bigint>;
  /** Every completion, with its run: a repeating chain's earlier runs are shown for their rewards. */
  completions: { taskId: string; runStartUs: bigint; completedUs: bigint }[];
  /** Claimed task ids and chain ids, within their run (inRun). */
  claimedTasks: Set<string>;
  claimedChains: Set<string>;
  /** Of the full chains asked about (max_completions reached), those that admitted the user. */
  admittedChains: Set<string>;
  /** Counted, summed and streak tasks' tallies by task id within its run (inRun), in the tally chains asked about (docs/quest-language.md). */
  tallies: Map<string, Tally>;
}

type ClaimColumns = typeof rewardClaims.$inferSelect;

type ReadUserRow = DriverRow<Pick<UserColumns, 'id' | 'createdAt' | 'progressChangedAt'>> & {
  /** [task id, completed_at text, run] triples; the driver may hand json over unparsed (drizzle configures postgres.js that way). */
  completions: string | [CompletionColumns['taskId'], DriverRow<Pick<CompletionColumns, 'completedAt'>>['completedAt'], string][];
  /** [chain id, task id (null: the chain reward), run] triples. */
  claims: string | [ClaimColumns['chainId'], ClaimColumns['taskId'], string][];
  /** Chain ids; only when full chains were asked about. */
  admissions?: string | string[];
  /** Each walk's [run, stored tallies]; only when tally chains were asked about. */
  tallies?: string | [string, TalliesJson | null][];
};

/**
 * The user with their completions and claims in `chainIds`, which of
 * `fullChainIds` admitted them and their tallies in `tallyChainIds`, in one
 * statement (the read's only one while definitions are cached); null for a
 * user the platform has not registered.
 */
export async function loadReadUserState(
  db: Executor,
  platformId: string,
  platformUserId: SenderUserId,
  chainIds: readonly string[],
  fullChainIds: readonly string[] = [],
  tallyChainIds: readonly string[] = [],
): Promise<ReadUserState | null> {
  const chains = idArray(chainIds);
  // Only a chain that admits no one new needs its admissions read (docs/budgets.md).
  const admissions =
    fullChainIds.length === 0
      ? sql``
      : sql`, coalesce((select json_agg(a.chain_id) from chain_admissions a
                  where a.user_id = u.id and a.chain_id = any(${idArray(fullChainIds)})), '[]'::json) as admissions`;
  // Only a chain with counted, summed or streak tasks keeps tallies to show.
  const tallies =
    tallyChainIds.length === 0
      ? sql``
      : sql`, coalesce((select json_agg(json_build_array(p.period_start_us::text, p.tallies)) from chain_progress p
                  where p.user_id = u.id and p.chain_id = any(${idArray(tallyChainIds)}) and p.tallies is not null), '[]'::json) as tallies`;
  const [row] = await db.execute<ReadUserRow>(sql`
    select u.id, u.created_at as "createdAt", u.progress_changed_at as "progressChangedAt",
      coalesce((select json_agg(json_build_array(c.task_id, c.completed_at::text, c.period_start_us::text)) from task_completions c
                where c.user_id = u.id and c.chain_id = any(${chains})), '[]'::json) as completions,
      coalesce((select json_agg(json_build_array(r.chain_id, r.task_id, r.period_start_us::text)) from reward_claims r
                where r.user_id = u.id and r.chain_id = any(${chains})), '[]'::json) as claims
      ${admissions}${tallies}
    from users u
    where u.platform_id = ${platformId} and u.platform_user_id = ${platformUserId}`);
  if (!row) return null;
  const state: ReadUserState = {
    id: row.id,
    registeredUs: decodeTimestampUs(users.createdAt, row.createdAt),
    progressChangedUs: row.progressChangedAt === null ? null : decodeTimestampUs(users.progressChangedAt, row.progressChangedAt),
    completedAt: new Map(),
    completions: [],
    claimedTasks: new Set(),
    claimedChains: new Set(),
    admittedChains: new Set(row.admissions === undefined ? [] : fromJson(row.admissions)),
    tallies: new Map(
      (row.tallies === undefined ? [] : fromJson(row.tallies)).flatMap(([runStart, byTask]) =>
        Object.entries(byTask ?? {}).map(([taskId, tally]) => [inRun(taskId, BigInt(runStart)), tallyFromJson(tally)] as const),
      ),
    ),
  };
  for (const [taskId, completedAt, runStart] of fromJson(row.completions)) {
    const completedUs = decodeTimestampUs(taskCompletions.completedAt, completedAt);
    state.completedAt.set(inRun(taskId, BigInt(runStart)), completedUs);
    state.completions.push({ taskId, runStartUs: BigInt(runStart), completedUs });
  }
  for (const [chainId, taskId, runStart] of fromJson(row.claims)) {
    if (taskId === null) state.claimedChains.add(inRun(chainId, BigInt(runStart)));
    else state.claimedTasks.add(inRun(taskId, BigInt(runStart)));
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
