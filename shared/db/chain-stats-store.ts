import { sql } from 'drizzle-orm';
import type { DayCounts } from '../domain/campaign-days.js';
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


/** One run of a repeating chain (docs/quest-language.md): the chains completed in it and the claims of its rewards. */
export interface StoredRun {
  periodStartUs: bigint;
  completions: number;
  claims: number;
}

export interface StoredChainStats {
  /** Empty for a chain that does not repeat. */
  runs: StoredRun[];
  funnel: StoredFunnel;
  tasks: StoredTaskStats[];
  rewards: StoredRewardStats[];
  prizes: StoredPrizeStats[];
  /** One day in the chain's time zone (YYYY-MM-DD), only days with something. */
  days: DayCounts[];
}

// What a claim cost the budget (core/rewards/claim-reward.ts): a box's drawn prize value, else the reward's value, else 0.
const CLAIM_VALUE = sql.raw(`coalesce((reward->'prize'->>'value')::float8, (reward->>'value')::float8, 0)`);

const num = (value: unknown) => Number(value ?? 0);

export async function readStoredChainStats(db: Database, chain: { id: string; timezone: string; startUs: bigint; repeating: boolean }): Promise<StoredChainStats> {
  return db.transaction(
    async (tx) => {
      // The per-task medians sort every completion of the chain: in memory up to ~1,000,000 completions
      // (at 2,000,000 they still spill to a temporary file; docs/performance.md, "Campaign stats").
      await tx.execute(sql`set local work_mem = '64MB'`);
      const [funnel, tasks, claims, prizes, progressDays, runs] = await Promise.all([
        readFunnel(tx, chain.id, chain.repeating),
        readTasks(tx, chain.id, chain.startUs, chain.repeating),
        readClaims(tx, chain.id, chain.timezone),
        readPrizes(tx, chain.id),
        readDays(tx, chain.id, chain.timezone),
        chain.repeating ? readRuns(tx, chain.id) : Promise.resolve([]),
      ]);
      const dayKeys = [...new Set([...progressDays.keys(), ...claims.days.keys()])].sort();
      const days = dayKeys.map((day) => ({ day, starts: progressDays.get(day)?.starts ?? 0, completions: progressDays.get(day)?.completions ?? 0, claims: claims.days.get(day) ?? 0 }));
      return { runs, funnel, tasks, rewards: claims.rewards, prizes, days };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

/** A repeating chain has a walk per user and run: its users are counted once each (started: in any run, completed: any run completed). */
async function readFunnel(tx: Executor, chainId: string, repeating: boolean): Promise<StoredFunnel> {
  const walks = repeating
    ? sql`(select bool_or(completed_tasks > 0) as started, bool_or(completed_at is not null) as completed, bool_or(generation > 0) as reversed
           from chain_progress where chain_id = ${chainId} group by user_id) w`
    : sql`(select completed_tasks > 0 as started, completed_at is not null as completed, generation > 0 as reversed
           from chain_progress where chain_id = ${chainId}) w`;
  const [row] = await tx.execute<Record<string, unknown>>(sql`
    select count(*) as participants,
           count(*) filter (where started) as started,
           count(*) filter (where completed) as completed,
           count(*) filter (where reversed) as reversed_users,
           (select count(*) from chain_admissions a where a.chain_id = ${chainId}) as places
    from ${walks}`);
  return {
    participants: num(row!.participants),
    places: num(row!.places),
    started: num(row!.started),
    completed: num(row!.completed),
    reversedUsers: num(row!.reversed_users),
  };
}

/**
 * A user joins a chain at the later of their registration and its start
 * (shared/domain/chain-view.ts); a run of a repeating chain at the later of
 * their registration and the run's start, and each user counts once.
 */
async function readTasks(tx: Executor, chainId: string, startUs: bigint, repeating: boolean): Promise<StoredTaskStats[]> {
  const start = repeating ? sql`to_timestamp(tc.period_start_us::float8 / 1e6)` : sql`to_timestamp(${startUs.toString()}::float8 / 1e6)`;
  const users = repeating ? sql`count(distinct tc.user_id)` : sql`count(*)`;
  const rows = await tx.execute<Record<string, unknown>>(sql`
    select tc.task_id,
           ${users} as completed_users,
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

/**
 * Claims per reward and per day in one pass over the chain's claims (grouping
 * sets): the two groupings read the same heap rows, the value inside `reward`.
 */
async function readClaims(tx: Executor, chainId: string, timezone: string): Promise<{ rewards: StoredRewardStats[]; days: Map<string, number> }> {
  const rows = await tx.execute<Record<string, unknown>>(sql`
    select grouping(task_id) = 0 as by_reward, task_id, day::text as day,
           count(*) as claims, sum(value) as value,
           count(*) filter (where reversed) as reversed_claims,
           coalesce(sum(value) filter (where reversed), 0) as reversed_value
    from (
      select task_id, (claimed_at at time zone ${timezone})::date as day, ${CLAIM_VALUE} as value, reversed_at is not null as reversed
      from reward_claims where chain_id = ${chainId}
    ) c
    group by grouping sets ((task_id), (day))`);
  const rewards = rows.filter((row) => row.by_reward === true).map((row) => ({
    taskId: row.task_id === null ? null : String(row.task_id),
    claims: num(row.claims),
    value: num(row.value),
    reversedClaims: num(row.reversed_claims),
    reversedValue: num(row.reversed_value),
  }));
  const days = new Map(rows.filter((row) => row.by_reward !== true).map((row) => [String(row.day), num(row.claims)]));
  return { rewards, days };
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
 * (a start) and chains completed on it; claims come from readClaims. Only
 * days with something; the use-case fills the chain's life in between.
 * Days are `::date` (formatted once per day, not once per row as to_char would).
 */
async function readDays(tx: Executor, chainId: string, timezone: string): Promise<Map<string, { starts: number; completions: number }>> {
  const rows = await tx.execute<Record<string, unknown>>(sql`
    with starts as (
      select (first_at at time zone ${timezone})::date as day, count(*) as n
      from (select min(completed_at) as first_at from task_completions where chain_id = ${chainId} group by user_id) f
      group by 1
    ), completions as (
      select (completed_at at time zone ${timezone})::date as day, count(*) as n
      from chain_progress where chain_id = ${chainId} and completed_at is not null
      group by 1
    )
    select day::text as day, coalesce(s.n, 0) as starts, coalesce(c.n, 0) as completions
    from starts s full join completions c using (day)`);
  return new Map(rows.map((row) => [String(row.day), { starts: num(row.starts), completions: num(row.completions) }]));
}

/** Per run of a repeating chain: its completed walks and the claims made of its rewards. */
async function readRuns(tx: Executor, chainId: string): Promise<StoredRun[]> {
  const rows = await tx.execute<Record<string, unknown>>(sql`
    with completions as (
      select period_start_us as period, count(*) as n from chain_progress
      where chain_id = ${chainId} and completed_at is not null group by 1
    ), claims as (
      select period_start_us as period, count(*) as n from reward_claims where chain_id = ${chainId} group by 1
    )
    select period::text as period, coalesce(c.n, 0) as completions, coalesce(r.n, 0) as claims
    from completions c full join claims r using (period)
    order by period`);
  return rows.map((row) => ({ periodStartUs: BigInt(String(row.period)), completions: num(row.completions), claims: num(row.claims) }));
}
