import { sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';

// The chain stats (docs/chain-stats.md) counted the slow way, straight
// over the rows: what the read and the columns written for it must agree with.

/**
 * The rows whose chain-stats columns (0014) disagree with what they are
 * derived from, recomputed here over the rows as the migration's backfill
 * computes them: a completion's time from the user's joining, a walk's first
 * completion, a claim's day in its chain's time zone. Tests that move
 * completions (late events, reversals, runs) expect none.
 */
export async function statsColumnsAdrift(db: Executor): Promise<{ table: string; row: string }[]> {
  const us = (column: string) => sql.raw(`(extract(epoch from ${column}) * 1000000)::bigint`);
  return db.execute<{ table: string; row: string }>(sql`
    select 'task_completions' as "table", c.user_id || '/' || c.task_id || '/' || c.period_start_us as "row"
    from task_completions c join users u on u.id = c.user_id join quest_chains q on q.id = c.chain_id
    where c.since_joined_us <> ${us('c.completed_at')} - greatest(${us('u.created_at')}, case when c.period_start_us <> 0 then c.period_start_us else ${us('q.start_date')} end)
    union all
    select 'chain_progress', p.user_id || '/' || p.chain_id || '/' || p.period_start_us
    from chain_progress p
    left join (select user_id, chain_id, period_start_us, min(completed_at) as first_at from task_completions group by 1, 2, 3) f
      on f.user_id = p.user_id and f.chain_id = p.chain_id and f.period_start_us = p.period_start_us
    where p.first_completed_at is distinct from f.first_at
    union all
    select 'reward_claims', r.id::text
    from reward_claims r join quest_chains q on q.id = r.chain_id
    where r.claimed_day <> (r.claimed_at at time zone q.timezone)::date`);
}

/** A chain's stats as the stats read answers them, keyed for comparison (countStatsOverRows). */
export interface StatsOverRows {
  users: { started: number; completed: number };
  /** By task id: users who completed it, and the median seconds from joining (percentile_cont). */
  tasks: Map<string, { completedUsers: number; medianSeconds: number }>;
  /** By task id (null: the chain reward). */
  rewards: Map<string | null, { claims: number; value: number }>;
  reversals: { claims: number; value: number; users: number };
  /** Days with something, YYYY-MM-DD in the chain's time zone. */
  daily: Map<string, { starts: number; completions: number; claims: number }>;
}

/**
 * The chain stats counted straight over the rows, the slow way the
 * stats read counted them before 0014: each completion joined to its user,
 * sorted for its task's median, each time turned into a day, each claim's
 * value read from its reward. What the read answers must equal it.
 */
export async function countStatsOverRows(db: Executor, chainId: string): Promise<StatsOverRows> {
  const chain = sql`(select timezone from quest_chains where id = ${chainId})`;
  const joined = sql`greatest(u.created_at, case when c.period_start_us <> 0 then timestamptz 'epoch' + c.period_start_us * interval '1 microsecond' else q.start_date end)`;
  const [users] = await db.execute<{ started: number; completed: number; reversed: number }>(sql`
    select (select count(distinct user_id)::int from task_completions where chain_id = ${chainId}) as started,
           (select count(distinct user_id)::int from chain_progress where chain_id = ${chainId} and completed_at is not null) as completed,
           (select count(distinct user_id)::int from chain_progress where chain_id = ${chainId} and generation > 0) as reversed`);
  const tasks = await db.execute<{ task_id: string; users: number; median: number }>(sql`
    select c.task_id, count(distinct c.user_id)::int as users, percentile_cont(0.5) within group (order by extract(epoch from c.completed_at - ${joined})) as median
    from task_completions c join users u on u.id = c.user_id join quest_chains q on q.id = c.chain_id
    where c.chain_id = ${chainId} group by c.task_id`);
  const value = sql`coalesce((reward->'prize'->>'value')::float8, (reward->>'value')::float8, 0)`;
  const rewards = await db.execute<{
    task_id: string | null;
    claims: number;
    value: number;
    reversed_claims: number;
    reversed_value: number;
  }>(sql`
    select task_id, count(*)::int as claims, sum(${value}) as value,
           count(*) filter (where reversed_at is not null)::int as reversed_claims, coalesce(sum(${value}) filter (where reversed_at is not null), 0) as reversed_value
    from reward_claims where chain_id = ${chainId} group by task_id`);
  const days = await db.execute<{ day: string; starts: number; completions: number; claims: number }>(sql`
    with starts as (
      select (min(completed_at) at time zone ${chain})::date as day from task_completions where chain_id = ${chainId} group by user_id
    ), completions as (
      select (completed_at at time zone ${chain})::date as day from chain_progress where chain_id = ${chainId} and completed_at is not null
    ), claims as (
      select (claimed_at at time zone ${chain})::date as day from reward_claims where chain_id = ${chainId}
    )
    select day::text as day, sum(s)::int as starts, sum(c)::int as completions, sum(r)::int as claims from (
      select day, 1 as s, 0 as c, 0 as r from starts union all select day, 0, 1, 0 from completions union all select day, 0, 0, 1 from claims
    ) d group by day`);
  return {
    users: { started: users!.started, completed: users!.completed },
    tasks: new Map(tasks.map((row) => [row.task_id, { completedUsers: row.users, medianSeconds: Number(row.median) }])),
    rewards: new Map(rewards.map((row) => [row.task_id, { claims: row.claims, value: Number(row.value) }])),
    reversals: {
      claims: rewards.reduce((sum, row) => sum + row.reversed_claims, 0),
      value: rewards.reduce((sum, row) => sum + Number(row.reversed_value), 0),
      users: users!.reversed,
    },
    daily: new Map(days.map((row) => [row.day, { starts: row.starts, completions: row.completions, claims: row.claims }])),
  };
}

/** A stats answer in the fields countStatsOverRows counts (the API's and the use-case's shapes both map to it). */
export interface StatsAnswer {
  users: { started: number; completed: number };
  tasks: { taskId: string; completedUsers: number; medianSeconds: number | null }[];
  rewards: { taskId: string | null; claims: number; value: number }[];
  reversals: { claims: number; value: number; users: number };
  daily: { day: string; starts: number; completions: number; claims: number }[];
}

/** How an answer differs from the count over the rows, one line per difference: none when it is exact (medians to the microsecond). */
export function statsDifferences(answer: StatsAnswer, rows: StatsOverRows): string[] {
  const differences: string[] = [];
  const differ = (what: string, got: unknown, counted: unknown) =>
    differences.push(`${what}: answered ${JSON.stringify(got)}, counted ${JSON.stringify(counted)}`);
  if (answer.users.started !== rows.users.started || answer.users.completed !== rows.users.completed)
    differ('users', answer.users, rows.users);
  for (const task of answer.tasks) {
    const counted = rows.tasks.get(task.taskId) ?? { completedUsers: 0, medianSeconds: null };
    const median = (seconds: number | null) => (seconds === null ? null : Math.round(seconds * 1e6));
    if (task.completedUsers !== counted.completedUsers || median(task.medianSeconds) !== median(counted.medianSeconds))
      differ(`task ${task.taskId}`, task, counted);
  }
  // Sums of values added in another order may differ in their last bits.
  const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
  for (const reward of answer.rewards) {
    const counted = rows.rewards.get(reward.taskId) ?? { claims: 0, value: 0 };
    if (reward.claims !== counted.claims || !same(reward.value, counted.value))
      differ(`reward ${reward.taskId}`, reward, counted);
  }
  if (answer.rewards.length !== rows.rewards.size)
    differ(
      'rewards claimed',
      answer.rewards.map((reward) => reward.taskId),
      [...rows.rewards.keys()],
    );
  const { claims, value, users } = answer.reversals;
  if (claims !== rows.reversals.claims || !same(value, rows.reversals.value) || users !== rows.reversals.users)
    differ('reversals', answer.reversals, rows.reversals);
  const answered = answer.daily.filter((day) => day.starts + day.completions + day.claims > 0);
  const counted = [...rows.daily].map(([day, counts]) => ({ day, ...counts })).sort((a, b) => (a.day < b.day ? -1 : 1));
  if (JSON.stringify(answered) !== JSON.stringify(counted)) differ('daily', answered, counted);
  return differences;
}

/** The stats answer of the HTTP API (`data` of GET .../stats) in StatsAnswer's fields. */
export function statsAnswerOf(data: {
  users: { started: number; completed: number };
  tasks: { task_id: string; completed_users: number; median_seconds_to_complete: number | null }[];
  rewards: { task_id: string | null; claims: number; value_claimed: number }[];
  reversals: { claims: number; value: number; users: number };
  daily: { date: string; starts: number; completions: number; claims: number }[];
}): StatsAnswer {
  return {
    users: { started: data.users.started, completed: data.users.completed },
    tasks: data.tasks.map((task) => ({
      taskId: task.task_id,
      completedUsers: task.completed_users,
      medianSeconds: task.median_seconds_to_complete,
    })),
    rewards: data.rewards
      .filter((reward) => reward.claims > 0)
      .map((reward) => ({ taskId: reward.task_id, claims: reward.claims, value: reward.value_claimed })),
    reversals: data.reversals,
    daily: data.daily.map((day) => ({ day: day.date, starts: day.starts, completions: day.completions, claims: day.claims })),
  };
}
