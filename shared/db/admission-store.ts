import { sql } from 'drizzle-orm';
import type { ServiceUserId } from '../domain/ids.js';
import type { Executor } from './client.js';
import { idArray, numberArray } from './sql-fragments.js';

/**
 * Places under a chain's max_completions (docs/budgets.md, "Completion
 * caps"), taken by the matcher in its batch's transaction. Each function is
 * one statement whatever the number of users and chains.
 */

export interface Admission {
  userId: ServiceUserId;
  chainId: string;
}

/** Which of these (user, chain) already hold a place, as `user/chain` keys. */
export async function findAdmissions(tx: Executor, candidates: readonly Admission[]): Promise<Set<string>> {
  if (candidates.length === 0) return new Set();
  const rows = await tx.execute<{ key: string }>(sql`
    select a.user_id || '/' || a.chain_id as key
    from chain_admissions a
    join unnest(${idArray(candidates.map((c) => c.userId))}, ${idArray(candidates.map((c) => c.chainId))}) as r(u, c)
      on a.user_id = r.u and a.chain_id = r.c`);
  return new Set(rows.map((row) => row.key));
}

/**
 * Takes up to `need` places of each chain, never past its max_completions,
 * and answers how many each gave. The chains' rows are locked in id order
 * (a conditional update is the check and the lock: a concurrent batch waits,
 * then finds what this one left).
 */
export async function takePlaces(tx: Executor, needs: ReadonlyMap<string, number>): Promise<Map<string, number>> {
  if (needs.size === 0) return new Map();
  const ids = [...needs.keys()].sort();
  const rows = await tx.execute<{ id: string; granted: number }>(sql`
    with locked as (
      select id, admitted_users as before from quest_chains where id = any(${idArray(ids)}) order by id for update
    )
    update quest_chains q
    set admitted_users = least(q.max_completions, l.before + r.need)
    from locked l, unnest(${idArray(ids)}, ${numberArray(
      ids.map((id) => needs.get(id)!),
      'int',
    )}) as r(id, need)
    where q.id = l.id and r.id = l.id and q.max_completions is not null
    returning q.id, q.admitted_users - l.before as granted`);
  return new Map(rows.map((row) => [row.id, Number(row.granted)]));
}

export async function insertAdmissions(tx: Executor, admitted: readonly Admission[]): Promise<void> {
  if (admitted.length === 0) return;
  await tx.execute(sql`
    insert into chain_admissions (user_id, chain_id)
    select * from unnest(${idArray(admitted.map((a) => a.userId))}, ${idArray(admitted.map((a) => a.chainId))})
    on conflict do nothing`);
}

/** Which of the chains admitted this user (for reads of chains that admit no one new). */
export async function admittedChainsOf(db: Executor, userId: ServiceUserId, chainIds: readonly string[]): Promise<Set<string>> {
  if (chainIds.length === 0) return new Set();
  const rows = await db.execute<{ chainId: string }>(sql`
    select chain_id as "chainId" from chain_admissions where user_id = ${userId} and chain_id = any(${idArray(chainIds)})`);
  return new Set(rows.map((row) => row.chainId));
}
