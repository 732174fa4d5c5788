import { type SQL, sql } from 'drizzle-orm';
import type { DayCounts } from '../domain/chain-stats-series.js';
import {
  completionDaysStatement,
  readCompletionDays,
  readRepeatingUserDays,
  readWalkDays,
  walkDaysStatement,
} from './chain-stats-days.js';
import type { Database, Executor } from './client.js';
import { chainPointsPaidOut } from './points-store.js';

/**
 * How a chain does (docs/chain-stats.md), counted over the stored rows
 * themselves, never over the counters the claims and the matcher move
 * (budget_spent, claims_count, admitted_users): a count over rows cannot drift
 * from the rows. All statements run in one read-only repeatable-read
 * transaction, so every figure comes from the same snapshot: under concurrent
 * claims the budget spent always equals the sum of the claims answered beside it.
 * Each statement reads one chain's rows in the order of an index led by
 * chain_id (drizzle/0014_campaign_stats_at_write.sql), from values written
 * with the rows (a completion's time from joining, a walk's first completion,
 * a claim's value and day), so no row is joined, sorted or converted.
 */

interface StoredFunnel {
  /** Users the matcher counted in the chain (a chain_progress row: an event of theirs was walked in it). */
  participants: number;
  /** Places taken under max_completions (chain_admissions). */
  places: number;
  started: number;
  completed: number;
  /** Users whose completions were undone at least once (a reversal moved their walk to a later generation). */
  reversedUsers: number;
}

interface StoredTaskStats {
  taskId: string;
  completedUsers: number;
  /** Median of (completion - joined) in seconds; null while nobody completed it. */
  medianSecondsToComplete: number | null;
}

interface StoredRewardStats {
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
interface StoredRun {
  runStartUs: bigint;
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
  /** The points its claims credited to balances, less their reversals standing now (§18): the sum of its ledger entries. */
  pointsPaidOut: number;
}

const num = (value: unknown) => Number(value ?? 0);

/** The statements that read all of a (not repeating) chain's rows, by what they count: `npm run bench:chain-stats` prints their plans. */
export function chainStatsStatements(chain: { id: string; timezone: string }): [string, SQL][] {
  return [
    ['walks and daily starts', walkDaysStatement(chain.id, chain.timezone)],
    ['daily completions', completionDaysStatement(chain.id, chain.timezone)],
    ['tasks: completions and medians', tasksStatement(chain.id, false)],
    ['claims per reward and day', claimsStatement(chain.id)],
  ];
}

export async function readStoredChainStats(
  db: Database,
  chain: { id: string; timezone: string; repeating: boolean },
): Promise<StoredChainStats> {
  return db.transaction(
    async (tx) => {
      // A repeating chain's users are counted once each, over their walks grouped per user: in memory up to ~1,000,000 walks.
      if (chain.repeating) await tx.execute(sql`set local work_mem = '64MB'`);
      const [walks, completionDays, tasks, claims, prizes, places, runs, pointsPaidOut] = await Promise.all([
        chain.repeating ? readRepeatingUserDays(tx, chain.id, chain.timezone) : readWalkDays(tx, chain.id, chain.timezone),
        readCompletionDays(tx, chain.id, chain.timezone),
        readTasks(tx, chain.id, chain.repeating),
        readClaims(tx, chain.id),
        readPrizes(tx, chain.id),
        readPlaces(tx, chain.id),
        chain.repeating ? readRuns(tx, chain.id) : Promise.resolve([]),
        chainPointsPaidOut(tx, chain.id),
      ]);
      // A chain that does not repeat has a walk per user: its completed users are its completed walks.
      const completed = walks.completed ?? sum(completionDays.values());
      const funnel = { participants: walks.walks, places, started: walks.started, completed, reversedUsers: walks.reversed };
      const dayKeys = [...new Set([...walks.starts.keys(), ...completionDays.keys(), ...claims.days.keys()])].sort();
      const days = dayKeys.map((day) => ({
        day,
        starts: walks.starts.get(day) ?? 0,
        completions: completionDays.get(day) ?? 0,
        claims: claims.days.get(day) ?? 0,
      }));
      return { runs, funnel, tasks, rewards: claims.rewards, prizes, days, pointsPaidOut: Number(pointsPaidOut) };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

const sum = (values: Iterable<number>) => {
  let total = 0;
  for (const value of values) total += value;
  return total;
};

async function readPlaces(tx: Executor, chainId: string): Promise<number> {
  const [row] = await tx.execute<{ places: unknown }>(
    sql`select count(*) as places from chain_admissions where chain_id = ${chainId}`,
  );
  return num(row?.places);
}

function tasksStatement(chainId: string, repeating: boolean): SQL {
  const users = repeating ? sql`count(distinct user_id)` : sql`count(*)`;
  return sql`
    select t.id as task_id, c.users,
           (select avg(m.since_joined_us) from (
              select since_joined_us from task_completions
              where chain_id = ${chainId} and task_id = t.id
              order by since_joined_us offset (c.completions - 1) / 2 limit 2 - c.completions % 2) m) as median_us
    from quest_tasks t, lateral (
      select count(*) as completions, ${users} as users from task_completions where chain_id = ${chainId} and task_id = t.id) c
    where t.chain_id = ${chainId} and c.completions > 0`;
}

/**
 * Per task: its completions, counted in its range of
 * task_completions_chain_task_idx (one range per task: grouping them in one
 * scan cost a third more), and their median time from joining, the middle
 * entry (or the mean of the two middle ones) of the task's range of
 * task_completions_chain_task_wait_idx, read at an offset: as
 * percentile_cont(0.5) would answer, without a sort. In a repeating chain a
 * user completes a task once per run: the median is over every completion,
 * each user counts once.
 */
async function readTasks(tx: Executor, chainId: string, repeating: boolean): Promise<StoredTaskStats[]> {
  const rows = await tx.execute<Record<string, unknown>>(tasksStatement(chainId, repeating));
  return rows.map((row) => ({
    taskId: String(row.task_id),
    completedUsers: num(row.users),
    medianSecondsToComplete: row.median_us === null ? null : Number(row.median_us) / 1e6,
  }));
}

const claimsStatement = (chainId: string): SQL => sql`
  select task_id, claimed_day::text as day, value_bits, count(*) as claims, count(reversed_at) as reversed_claims
  from reward_claims where chain_id = ${chainId}
  group by task_id, claimed_day, value_bits`;

/**
 * Claims per reward and per day in one pass over
 * reward_claims_chain_task_day_idx, grouped in its order (reward, day,
 * value): each claim's day and value were written with it (0014), and the
 * claims of one reward, day and value share a posting list, so the pass reads
 * little more than their count. A group's value is its claims times their value.
 */
async function readClaims(tx: Executor, chainId: string): Promise<{ rewards: StoredRewardStats[]; days: Map<string, number> }> {
  const rows = await tx.execute<{
    task_id: string | null;
    day: string;
    value_bits: Buffer;
    claims: unknown;
    reversed_claims: unknown;
  }>(claimsStatement(chainId));
  const rewards = new Map<string | null, StoredRewardStats>();
  const days = new Map<string, number>();
  for (const row of rows) {
    const reward = rewards.get(row.task_id) ?? { taskId: row.task_id, claims: 0, value: 0, reversedClaims: 0, reversedValue: 0 };
    const value = row.value_bits.readDoubleBE(0);
    const [claims, reversed] = [num(row.claims), num(row.reversed_claims)];
    reward.claims += claims;
    reward.value += claims * value;
    reward.reversedClaims += reversed;
    reward.reversedValue += reversed * value;
    rewards.set(row.task_id, reward);
    days.set(row.day, (days.get(row.day) ?? 0) + claims);
  }
  return { rewards: [...rewards.values()], days };
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

/** Per run of a repeating chain: its completed walks and the claims made of its rewards. */
async function readRuns(tx: Executor, chainId: string): Promise<StoredRun[]> {
  const rows = await tx.execute<Record<string, unknown>>(sql`
    with completions as (
      select period_start_us as run_start, count(*) as n from chain_progress
      where chain_id = ${chainId} and completed_at is not null group by 1
    ), claims as (
      select period_start_us as run_start, count(*) as n from reward_claims where chain_id = ${chainId} group by 1
    )
    select run_start::text as run_start, coalesce(c.n, 0) as completions, coalesce(r.n, 0) as claims
    from completions c full join claims r using (run_start)
    order by run_start`);
  return rows.map((row) => ({
    runStartUs: BigInt(String(row.run_start)),
    completions: num(row.completions),
    claims: num(row.claims),
  }));
}
