import { sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import { formatIsoMicros as instantText } from '../domain/timestamp.js';
import { idArray, occurredUsColumn, textArray } from './sql-fragments.js';
import { pgTimestampToMicros } from './timestamps.js';

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
  completions: string | [string, string, string][];
};

/** Every stored walk of the given users, completions included, in one statement. */
export async function loadWalks(tx: Executor, userIds: readonly string[]): Promise<StoredWalk[]> {
  if (userIds.length === 0) return [];
  const rows = await tx.execute<WalkRow>(sql`
    select cp.user_id, cp.chain_id, cp.mark_us::text as mark_us, cp.mark_event_id,
           coalesce((select json_agg(json_build_array(tc.task_id, tc.event_id, ${occurredUsColumn(sql`tc.completed_at`)}))
                     from task_completions tc where tc.user_id = cp.user_id and tc.chain_id = cp.chain_id), '[]'::json) as completions
    from chain_progress cp where cp.user_id = any(${idArray(userIds)})`);
  return rows.map((row) => {
    const completions = typeof row.completions === 'string' ? (JSON.parse(row.completions) as [string, string, string][]) : row.completions;
    return {
      userId: row.user_id,
      chainId: row.chain_id,
      mark: row.mark_us === null || row.mark_event_id === null ? null : { occurredUs: BigInt(row.mark_us), id: row.mark_event_id },
      completions: new Map(completions.map(([taskId, eventId, us]) => [taskId, { eventId, completedUs: BigInt(us) }])),
    };
  });
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
  const rows = writes.map((w) => ({ u: w.userId, c: w.chainId, t: w.taskId, e: w.eventId, at: instantText(w.completedUs) }));
  await tx.execute(sql`
    insert into task_completions (user_id, task_id, chain_id, event_id, completed_at)
    select r.u, r.t, r.c, r.e, r.at::timestamptz
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(u uuid, c uuid, t uuid, e uuid, at text)
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
  return new Map(rows.map((row) => [row.id, pgTimestampToMicros(row.stamp)]));
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
  const rows = writes.map((w) => ({
    u: w.userId,
    c: w.chainId,
    done: w.completedTasks,
    total: w.totalTasks,
    at: w.completedUs === null ? null : instantText(w.completedUs),
    mark: w.mark === null ? null : String(w.mark.occurredUs),
    mark_id: w.mark?.id ?? null,
    changed: w.changedUs === null ? null : instantText(w.changedUs),
  }));
  await tx.execute(sql`
    insert into chain_progress (user_id, chain_id, completed_tasks, total_tasks, completed_at, mark_us, mark_event_id, updated_at)
    select r.u, r.c, r.done, r.total, r.at::timestamptz, r.mark::bigint, r.mark_id, r.changed::timestamptz
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      as r(u uuid, c uuid, done int, total int, at text, mark text, mark_id uuid, changed text)
    on conflict (user_id, chain_id) do update
      set completed_tasks = excluded.completed_tasks, total_tasks = excluded.total_tasks, completed_at = excluded.completed_at,
          mark_us = excluded.mark_us, mark_event_id = excluded.mark_event_id,
          updated_at = coalesce(excluded.updated_at, chain_progress.updated_at)`);
}
