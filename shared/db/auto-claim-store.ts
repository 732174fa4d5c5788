import { and, asc, eq, lte, sql } from 'drizzle-orm';
import type { SenderUserId, ServiceUserId } from '../domain/ids.js';
import type { Executor } from './client.js';
import type { DriverRow } from './driver-row.js';
import { autoClaims, users } from './schema/index.js';
import { idArray, instant, nullableIdArray, numberArray } from './sql-fragments.js';

// The rewards of auto-claim chains waiting for the worker to claim them
// (product rules §18.5, core/rewards/auto-claim.ts): written in the matcher's
// transaction, deleted once the claim is made or refused for good.

/** A reward earned in a chain with auto_claim: a task's (taskId) or the chain reward (taskId null), in one run. */
export interface EarnedAutoClaim {
  userId: ServiceUserId;
  chainId: string;
  taskId: string | null;
  runStartUs: bigint;
  /** Its completion plus the chain's reward hold: not claimable before. */
  dueUs: bigint;
}

export interface QueuedAutoClaim {
  id: string;
  dueUs: bigint;
}

export interface StoredAutoClaim extends EarnedAutoClaim {
  id: string;
  platformId: string;
  platformUserId: SenderUserId;
}

/**
 * Stores the earned rewards, once each (a reward already waiting is not
 * stored again), and answers those stored. A chain reward is stored only
 * when the chain has one. One statement, whatever the number.
 */
export async function insertAutoClaims(tx: Executor, earned: readonly EarnedAutoClaim[]): Promise<QueuedAutoClaim[]> {
  if (earned.length === 0) return [];
  const rows = await tx.execute<DriverRow<Pick<typeof autoClaims.$inferSelect, 'id'>> & { dueUs: string }>(sql`
    insert into auto_claims (user_id, chain_id, task_id, period_start_us, due_at)
    select e.u, e.c, e.t, e.p, timestamptz 'epoch' + e.due * interval '1 microsecond'
    from unnest(${idArray(earned.map((e) => e.userId))}, ${idArray(earned.map((e) => e.chainId))},
                ${nullableIdArray(earned.map((e) => e.taskId))}, ${numberArray(
                  earned.map((e) => e.runStartUs),
                  'bigint',
                )}, ${numberArray(
                  earned.map((e) => e.dueUs),
                  'bigint',
                )}) as e(u, c, t, p, due)
    where e.t is not null or exists (select 1 from chain_rewards r where r.chain_id = e.c)
    on conflict on constraint auto_claims_once do nothing
    returning id, (extract(epoch from due_at) * 1000000)::bigint::text as "dueUs"`);
  return rows.map((row) => ({ id: row.id, dueUs: BigInt(row.dueUs) }));
}

/** One waiting auto-claim with its user's platform and platform user id (whom the claim is for); null once settled. */
export async function findAutoClaim(db: Executor, id: string): Promise<StoredAutoClaim | null> {
  const [row] = await db
    .select({
      id: autoClaims.id,
      userId: autoClaims.userId,
      chainId: autoClaims.chainId,
      taskId: autoClaims.taskId,
      runStartUs: autoClaims.runStartUs,
      dueUs: autoClaims.dueAt,
      platformId: users.platformId,
      platformUserId: users.platformUserId,
    })
    .from(autoClaims)
    .innerJoin(users, eq(users.id, autoClaims.userId))
    .where(eq(autoClaims.id, id));
  return row ?? null;
}

/** Settles an auto-claim: its claim was made, found made, or refused for good. */
export async function deleteAutoClaim(db: Executor, id: string): Promise<void> {
  await db.delete(autoClaims).where(eq(autoClaims.id, id));
}

/**
 * Auto-claims due at least `minAgeUs` ago and stored at least that long ago:
 * their job should have run by now (lost with Redis, or failed), the sweeper
 * queues them again. Oldest due first.
 */
export async function listOverdueAutoClaims(db: Executor, minAgeUs: bigint, limit: number): Promise<QueuedAutoClaim[]> {
  const before = instant(BigInt(Date.now()) * 1000n - minAgeUs);
  return db
    .select({ id: autoClaims.id, dueUs: autoClaims.dueAt })
    .from(autoClaims)
    .where(and(lte(autoClaims.dueAt, before), lte(autoClaims.createdAt, before)))
    .orderBy(asc(autoClaims.dueAt))
    .limit(limit);
}
