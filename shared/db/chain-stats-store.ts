import { sql } from 'drizzle-orm';
import type { Database, Executor } from './client.js';

/**
 * How a campaign does (docs/campaign-stats.md), counted over the stored rows
 * themselves, never over the counters the claims and the matcher move
 * (budget_spent, claims_count, admitted_users): a count over rows cannot drift
 * from the rows. All statements run in one read-only repeatable-read
 * transaction, so every figure comes from the same snapshot: under concurrent
 * claims the budget spent always equals the sum of the claims answered beside it.
 * Each statement reads one chain's rows through an index led by chain_id
 * (drizzle/0012_campaign_stats.sql).
 */

export interface StoredFunnel {
  /** Users the matcher counted in the chain (a chain_progress row: an event of theirs was walked in it). */
  participants: number;
  /** Places taken under max_completions (chain_admissions). */
  places: number;
  started: number;
  completed: number;
  /** Users whose completions were undone at least once (a reversal moved their walk to a later generation). */
  reversedUsers: number;
}

export interface StoredTaskStats {
  taskId: string;
  completedUsers: number;
  /** Median of (completion - joined) in seconds; null while nobody completed it. */
  medianSecondsToComplete: number | null;
}

export interface StoredRewardStats {
  /** Null: the chain reward. */
  taskId: string | null;
  claims: number;
  value: number;
  reversedClaims: number;
  reversedValue: number;
}

export interface StoredPrizeStats {
  prizeId: string;
  name: string;
  value: number | null;
  drawn: number;
  stock: number | null;
}

export interface StoredDay {
  /** YYYY-MM-DD in the chain's time zone. */
  day: string;
  starts: number;
  completions: number;
  claims: number;
}

export interface StoredChainStats {
  funnel: StoredFunnel;
  tasks: StoredTaskStats[];
  rewards: StoredRewardStats[];
  prizes: StoredPrizeStats[];
  days: StoredDay[];
}

// What a claim cost the budget (core/use-cases/rewards/claim-reward.ts): a box's drawn prize value, else the reward's value, else 0.
const CLAIM_VALUE = sql.raw(`coalesce((reward->'prize'->>'value')::float8, (reward->>'value')::float8, 0)`);

const num = (value: unknown) => Number(value ?? 0);

export async function readStoredChainStats(db: Database, chain: { id: string; timezone: string; startUs: bigint }): Promise<StoredChainStats> {
  return db.transaction(
    async (tx) => {
      const [funnel, tasks, rewards, prizes, days] = await Promise.all([
        readFunnel(tx, chain.id),
        readTasks(tx, chain.id, chain.startUs),
        readRewards(tx, chain.id),
        readPrizes(tx, chain.id),
        readDays(tx, chain.id, chain.timezone),
      ]);
      return { funnel, tasks, rewards, prizes, days };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

async function readFunnel(tx: Executor, chainId: string): Promise<StoredFunnel> {
  const [row] = await tx.execute<Record<string, unknown>>(sql`
    select count(*) as participants,
           count(*) filter (where completed_tasks > 0) as started,
           count(*) filter (where completed_at is not null) as completed,
           count(*) filter (where generation > 0) as reversed_users,
           (select count(*) from chain_admissions a where a.chain_id = ${chainId}) as places
    from chain_progress where chain_id = ${chainId}`);
  return {
    participants: num(row!.participants),
    places: num(row!.places),
    started: num(row!.started),
    completed: num(row!.completed),
    reversedUsers: num(row!.reversed_users),
  };
}

/** A user joins a chain at the later of their registration and its start (shared/domain/chain-view.ts). */
async function readTasks(tx: Executor, chainId: string, startUs: bigint): Promise<StoredTaskStats[]> {
  const start = sql`to_timestamp(${startUs.toString()}::float8 / 1e6)`;
  const rows = await tx.execute<Record<string, unknown>>(sql`
    select tc.task_id,
           count(*) as completed_users,
           percentile_cont(0.5) within group (order by extract(epoch from tc.completed_at - greatest(u.created_at, ${start}))) as median_seconds
    from task_completions tc join users u on u.id = tc.user_id
    where tc.chain_id = ${chainId}
    group by tc.task_id`);
  return rows.map((row) => ({
    taskId: String(row.task_id),
    completedUsers: num(row.completed_users),
    medianSecondsToComplete: row.median_seconds === null ? null : Number(row.median_seconds),
  }));
}

async function readRewards(tx: Executor, chainId: string): Promise<StoredRewardStats[]> {
  const rows = await tx.execute<Record<string, unknown>>(sql`
    select task_id, count(*) as claims, sum(${CLAIM_VALUE}) as value,
           count(*) filter (where reversed_at is not null) as reversed_claims,
           coalesce(sum(${CLAIM_VALUE}) filter (where reversed_at is not null), 0) as reversed_value
    from reward_claims where chain_id = ${chainId}
    group by task_id`);
  return rows.map((row) => ({
    taskId: row.task_id === null ? null : String(row.task_id),
    claims: num(row.claims),
    value: num(row.value),
    reversedClaims: num(row.reversed_claims),
    reversedValue: num(row.reversed_value),
  }));
}

async function readPrizes(tx: Executor, chainId: string): Promise<StoredPrizeStats[]> {
  const rows = await tx.execute<Record<string, unknown>>(sql`
    select p.prize_id, p.name, p.value, p.stock,
           (select count(*) from reward_draws d where d.chain_id = p.chain_id and d.prize_id = p.prize_id) as drawn
    from reward_prizes p where p.chain_id = ${chainId}
    order by p.position`);
  return rows.map((row) => ({
    prizeId: String(row.prize_id),
    name: String(row.name),
    value: row.value === null ? null : Number(row.value),
    drawn: num(row.drawn),
    stock: row.stock === null ? null : Number(row.stock),
  }));
}

/**
 * Per day in the chain's time zone: users whose first completion fell on it
 * (a start), chains completed on it, claims made on it. Only days with
 * something; the use-case fills the chain's life in between.
 */
async function readDays(tx: Executor, chainId: string, timezone: string): Promise<StoredDay[]> {
  const day = (column: string) => sql.raw(`to_char(${column} at time zone `);
  const rows = await tx.execute<Record<string, unknown>>(sql`
    with starts as (
      select ${day('first_at')}${timezone}, 'YYYY-MM-DD') as day, count(*) as n
      from (select min(completed_at) as first_at from task_completions where chain_id = ${chainId} group by user_id) f
      group by 1
    ), completions as (
      select ${day('completed_at')}${timezone}, 'YYYY-MM-DD') as day, count(*) as n
      from chain_progress where chain_id = ${chainId} and completed_at is not null
      group by 1
    ), claims as (
      select ${day('claimed_at')}${timezone}, 'YYYY-MM-DD') as day, count(*) as n
      from reward_claims where chain_id = ${chainId}
      group by 1
    )
    select day, coalesce(s.n, 0) as starts, coalesce(c.n, 0) as completions, coalesce(r.n, 0) as claims
    from starts s full join completions c using (day) full join claims r using (day)
    order by day`);
  return rows.map((row) => ({ day: String(row.day), starts: num(row.starts), completions: num(row.completions), claims: num(row.claims) }));
}
