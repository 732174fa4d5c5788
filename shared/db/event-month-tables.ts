import { sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import { withTransaction } from './transaction.js';

/**
 * The monthly partitions of `events` (drizzle/0005_partitioned_events.sql):
 * `events_YYYY_MM` holds the events whose `occurred_at` falls in that UTC
 * month, `events_default` whatever no partition covers. The service creates
 * the coming months ahead of time (migrate, worker start and its periodic
 * maintenance) and, with EVENT_RETENTION_MONTHS, drops whole months past the
 * horizon. Every statement here is DDL or catalog reads about those tables.
 */

/** A UTC month as a count of months since year 0 (2026-11 is 2026 × 12 + 10). */
export type MonthIndex = number;

/** How many months after the current one always have their partition. */
const MONTH_TABLES_AHEAD = 3;

// One process at a time changes the partitions; others wait their turn (or skip: see maintain).
const PARTITION_LOCK_KEY = 7_215_430_983;
// DDL on events queues behind running transactions, and statements on events then queue behind it:
// give up soon and try again at the next pass rather than stall ingest and matching.
const DDL_LOCK_TIMEOUT = '3s';

export const monthOf = (date: Date): MonthIndex => date.getUTCFullYear() * 12 + date.getUTCMonth();
const monthStart = (month: MonthIndex): Date => new Date(Date.UTC(Math.floor(month / 12), month % 12, 1));
const monthStartUs = (month: MonthIndex): bigint => BigInt(monthStart(month).getTime()) * 1000n;
export const monthTableName = (month: MonthIndex): string =>
  `events_${String(Math.floor(month / 12)).padStart(4, '0')}_${String((month % 12) + 1).padStart(2, '0')}`;

/**
 * The first month retention keeps: with `retentionMonths` = N, the N months
 * before the current one and the current one. Events before its start are
 * past the horizon.
 */
export const retentionHorizon = (now: Date, retentionMonths: number): MonthIndex => monthOf(now) - retentionMonths;

export interface EventMonthTable {
  name: string;
  /** Bounds in epoch microseconds, [fromUs, untilUs); null for the default partition. */
  fromUs: bigint | null;
  untilUs: bigint | null;
}

type PartitionRow = { name: string; fromUs: string | null; untilUs: string | null };

/** The partitions of events, oldest first, the default partition last. */
export async function listEventMonthTables(db: Executor): Promise<EventMonthTable[]> {
  // The bounds as Postgres itself evaluates them (the partition constraint's literals), in epoch µs.
  const rows = await db.execute<PartitionRow>(sql`
    select c.relname as name,
           (extract(epoch from (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz) * 1000000)::bigint::text as "fromUs",
           (extract(epoch from (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz) * 1000000)::bigint::text as "untilUs"
    from pg_inherits i
    join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'events'::regclass`);
  return rows
    .map((row) => ({
      name: row.name,
      fromUs: row.fromUs === null ? null : BigInt(row.fromUs),
      untilUs: row.untilUs === null ? null : BigInt(row.untilUs),
    }))
    .sort((a, b) => (a.fromUs === null ? 1 : b.fromUs === null ? -1 : a.fromUs < b.fromUs ? -1 : a.fromUs > b.fromUs ? 1 : 0));
}

async function lockPartitions(tx: Executor): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${PARTITION_LOCK_KEY})`);
  await tx.execute(sql`set local lock_timeout = '${sql.raw(DDL_LOCK_TIMEOUT)}'`);
}

const literal = (us: bigint) => `'${new Date(Number(us / 1000n)).toISOString()}'`;

/**
 * Creates the partition of each month in [from, from + count) that does not
 * exist yet, and answers the names it created. Idempotent, and safe when
 * processes race (one advisory lock; the loser finds the partition made).
 * Rows the default partition holds for such a month move into it. The table
 * is made apart and attached, which takes only a SHARE UPDATE EXCLUSIVE lock
 * on events (ingest and matching go on; CREATE TABLE … PARTITION OF would
 * take an exclusive one), plus an exclusive lock on the default partition,
 * which no statement bounded to covered months touches.
 */
export async function ensureEventMonthTables(db: Executor, months: { from: MonthIndex; count: number }): Promise<string[]> {
  const created: string[] = [];
  for (let month = months.from; month < months.from + months.count; month++) {
    const name = monthTableName(month);
    const made = await withTransaction(db, async (tx) => {
      await lockPartitions(tx);
      const existing = await listEventMonthTables(tx);
      const fromUs = monthStartUs(month);
      const untilUs = monthStartUs(month + 1);
      // Present already, or covered by a partition of another shape (made by hand): nothing to do.
      if (existing.some((p) => p.fromUs !== null && p.untilUs !== null && p.fromUs < untilUs && fromUs < p.untilUs)) return false;
      const table = sql.identifier(name);
      const bounds = sql.raw(`from (${literal(fromUs)}) to (${literal(untilUs)})`);
      await tx.execute(sql`create table ${table} (like events including defaults including constraints including indexes)`);
      await tx.execute(sql`
        with moved as (
          delete from events_default where occurred_at >= ${sql.raw(literal(fromUs))} and occurred_at < ${sql.raw(literal(untilUs))} returning *
        )
        insert into ${table} select * from moved`);
      await tx.execute(sql`alter table events attach partition ${table} for values ${bounds}`);
      return true;
    });
    if (made) created.push(name);
  }
  return created;
}

/** The partitions of the current month and MONTH_TABLES_AHEAD after it (what migrate and the worker keep). */
export const ensureComingEventMonthTables = (db: Executor, now = new Date()) =>
  ensureEventMonthTables(db, { from: monthOf(now), count: MONTH_TABLES_AHEAD + 1 });

export interface ExpiredEvents {
  /** Partitions entirely before the horizon: dropped (or, in a dry run, to be dropped). */
  partitions: string[];
  /** Rows of the default partition before the horizon (timestamps no partition covered): deleted. */
  defaultRows: number;
  /** The horizon's start: events before it are gone. */
  horizon: Date;
}

/**
 * Retention: drops every partition whose months all lie before the horizon
 * (`retentionHorizon`), and deletes the default partition's rows before it,
 * with the pending markers of those events (past the horizon they can no
 * longer count). Completions and progress they produced stay: nothing else
 * refers to an event row. `dryRun` answers what would go and changes nothing.
 */
export async function dropExpiredEvents(db: Executor, options: { horizon: MonthIndex; dryRun: boolean }): Promise<ExpiredEvents> {
  const horizonUs = monthStartUs(options.horizon);
  const horizon = sql.raw(literal(horizonUs));
  return withTransaction(db, async (tx) => {
    await lockPartitions(tx);
    const expired = (await listEventMonthTables(tx)).filter((p) => p.untilUs !== null && p.untilUs <= horizonUs);
    const [old] = await tx.execute<{ n: string }>(
      sql`select count(*)::text as n from events_default where occurred_at < ${horizon}`,
    );
    const result: ExpiredEvents = {
      partitions: expired.map((p) => p.name),
      defaultRows: Number(old?.n ?? 0),
      horizon: monthStart(options.horizon),
    };
    if (options.dryRun) return result;
    await tx.execute(sql`delete from pending_events where occurred_at < ${horizon}`);
    await tx.execute(sql`delete from events_default where occurred_at < ${horizon}`);
    // A dropped partition takes its indexes with it: no row-by-row delete, no vacuum debt.
    for (const partition of expired) await tx.execute(sql`drop table ${sql.identifier(partition.name)}`);
    return result;
  });
}
