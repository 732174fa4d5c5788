import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from './client.js';

/**
 * The chain stats' figures about walks (chain_progress), counted by days
 * in the chain's time zone. Turning each of a million rows' times into a day
 * cost more than the rest of the read (docs/performance.md, "Chain
 * stats"), so a day's rows are counted as one range of an index ordered by
 * the time instead: the days themselves are found one after the other, each
 * by a probe for the first time at or after the previous day's end.
 */

const num = (value: unknown) => Number(value ?? 0);

/** A walk's first completion (its start) and its completion: each leads an index after chain_id (0014). */
type DayColumn = 'first_completed_at' | 'completed_at';

/**
 * `days(day, from_at, until_at)`: each day on which `column` holds a time
 * among the chain's walks, with the range of instants [from_at, until_at)
 * that counts for it. A day's range ends at the next local midnight, never
 * before its first row (a time zone whose clock went back over midnight),
 * so consecutive ranges cover every time once.
 */
function dayRanges(chainId: string, timezone: string, column: DayColumn): SQL {
  const at = sql.raw(column);
  const first = (after: SQL) => sql`
    select ${at} as at, (${at} at time zone ${timezone})::date as day from chain_progress
    where chain_id = ${chainId} and ${at} is not null ${after} order by ${at} limit 1`;
  const dayEnd = (row: string) =>
    sql`greatest((${sql.raw(row)}.day + 1)::timestamp at time zone ${timezone}, ${sql.raw(row)}.at + interval '1 microsecond')`;
  return sql`
    with recursive days(day, from_at, until_at) as (
      select f.day, f.at, ${dayEnd('f')} from (${first(sql``)}) f
      union all
      select n.day, n.at, ${dayEnd('n')} from days, lateral (${first(sql`and ${at} >= days.until_at`)}) n
    )`;
}

export interface WalkDays {
  /** Walks of the chain (in a chain that does not repeat, its participants). */
  walks: number;
  /** Walks with a completion. */
  started: number;
  /** Walks a reversal moved to a later generation. */
  reversed: number;
  /** Users who completed the chain, where a user has many walks (a repeating chain); else its completed walks, per day. */
  completed?: number;
  /** Walks by the day of their first completion. */
  starts: Map<string, number>;
}

export function walkDaysStatement(chainId: string, timezone: string): SQL {
  const counted = sql`count(*) as walks, count(*) filter (where generation > 0) as reversed`;
  return sql`
    ${dayRanges(chainId, timezone, 'first_completed_at')}
    select days.day::text as day, c.walks, c.reversed from days, lateral (
      select ${counted} from chain_progress
      where chain_id = ${chainId} and first_completed_at >= days.from_at and first_completed_at < days.until_at) c
    union all
    select null, ${counted} from chain_progress where chain_id = ${chainId} and first_completed_at is null`;
}

/**
 * A chain's walks and their starts per day, in one pass over
 * chain_progress_chain_started_idx: a range per day of first completion,
 * then the walks without any completion (nulls sort last).
 */
export async function readWalkDays(tx: Executor, chainId: string, timezone: string): Promise<WalkDays> {
  const rows = await tx.execute<{ day: string | null; walks: unknown; reversed: unknown }>(walkDaysStatement(chainId, timezone));
  const figures: WalkDays = { walks: 0, started: 0, reversed: 0, starts: new Map() };
  for (const row of rows) {
    figures.walks += num(row.walks);
    figures.reversed += num(row.reversed);
    if (row.day === null) continue;
    figures.started += num(row.walks);
    figures.starts.set(row.day, (figures.starts.get(row.day) ?? 0) + num(row.walks));
  }
  return figures;
}

export function completionDaysStatement(chainId: string, timezone: string): SQL {
  return sql`
    ${dayRanges(chainId, timezone, 'completed_at')}
    select days.day::text as day, (
      select count(*) from chain_progress
      where chain_id = ${chainId} and completed_at is not null and completed_at >= days.from_at and completed_at < days.until_at) as n
    from days`;
}

/** Walks completed per day (every run's, in a repeating chain), over chain_progress_chain_completed_idx. */
export async function readCompletionDays(tx: Executor, chainId: string, timezone: string): Promise<Map<string, number>> {
  const rows = await tx.execute<{ day: string; n: unknown }>(completionDaysStatement(chainId, timezone));
  const days = new Map<string, number>();
  for (const row of rows) days.set(row.day, (days.get(row.day) ?? 0) + num(row.n));
  return days;
}

/**
 * A repeating chain has a walk per user and run, and its users count once
 * each: started and completed in any run, reversed in any, their start on
 * the day of their first completion in any run. Grouped per user (no day
 * ranges: a user's first completion is a minimum over their walks).
 */
export async function readRepeatingUserDays(tx: Executor, chainId: string, timezone: string): Promise<Required<WalkDays>> {
  const rows = await tx.execute<{ day: string | null; users: unknown; completed: unknown; reversed: unknown }>(sql`
    select (first_at at time zone ${timezone})::date::text as day, count(*) as users,
           count(*) filter (where completed) as completed, count(*) filter (where reversed) as reversed
    from (select min(first_completed_at) as first_at, bool_or(completed_at is not null) as completed, bool_or(generation > 0) as reversed
          from chain_progress where chain_id = ${chainId} group by user_id) u
    group by 1`);
  const figures = { walks: 0, started: 0, reversed: 0, completed: 0, starts: new Map<string, number>() };
  for (const row of rows) {
    figures.walks += num(row.users);
    figures.completed += num(row.completed);
    figures.reversed += num(row.reversed);
    if (row.day === null) continue;
    figures.started += num(row.users);
    figures.starts.set(row.day, num(row.users));
  }
  return figures;
}
