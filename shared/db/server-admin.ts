import { sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import type { Executor } from './client.js';

/**
 * Statements about the server rather than one aggregate: creating and
 * dropping whole databases (each test file owns one; the benchmark its own),
 * housekeeping and Postgres' own views. Kept here so that every SQL statement
 * of the codebase lives in shared/db/.
 */

const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Runs `fn` on a one-connection client to the server's maintenance database (`serverUrl` names it). */
async function onServer<T>(serverUrl: string, fn: (admin: postgres.Sql) => Promise<T>): Promise<T> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    return await fn(admin);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

export const createDatabaseNamed = (serverUrl: string, name: string) =>
  onServer(serverUrl, async (admin) => void (await admin.unsafe(`create database ${quoteIdentifier(name)}`)));

/** Drops the database even while clients are still connected (they are disconnected). */
export const dropDatabaseNamed = (serverUrl: string, name: string) =>
  onServer(
    serverUrl,
    async (admin) => void (await admin.unsafe(`drop database if exists ${quoteIdentifier(name)} with (force)`)),
  );

/**
 * Creates the database `databaseUrl` names when it does not exist yet (a
 * first start), through the same server's maintenance database `postgres`
 * with the same credentials. A database that exists is not touched, and the
 * maintenance database is only visited when needed (managed servers may
 * refuse it). Safe for replicas starting at once: losing the race is fine.
 * Returns whether it created the database.
 */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const probe = postgres(databaseUrl, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    await probe`select 1`;
    return false;
  } catch (error) {
    // 3D000 invalid_catalog_name: "database ... does not exist". Anything else is the caller's to see.
    if ((error as { code?: unknown }).code !== '3D000') throw error;
  } finally {
    await probe.end({ timeout: 5 });
  }
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  try {
    await createDatabaseNamed(url.toString(), name);
    return true;
  } catch (error) {
    // Another replica created it first: 42P04 duplicate_database, or 23505 when both inserted at once.
    const code = (error as { code?: unknown }).code;
    if (code === '42P04' || code === '23505') return false;
    throw error;
  }
}

/** Fresh planner statistics and visibility maps, e.g. between benchmark phases that rewrote these tables. */
export async function vacuumAnalyze(db: Executor, tables: readonly PgTable[]): Promise<void> {
  await db.execute(
    sql`vacuum analyze ${sql.join(
      tables.map((table) => sql`${table}`),
      sql`, `,
    )}`,
  );
}

/** Whether the server runs autovacuum, which keeps the planner's statistics (docs/operations.md, "Planner statistics"). */
export async function autovacuumIsOn(db: Executor): Promise<boolean> {
  const [row] = await db.execute<{ autovacuum: string }>(sql`show autovacuum`);
  return row?.autovacuum === 'on';
}

/** Process ids of the server's backends for one database, plus its background processes (no database). */
export async function backendPids(db: Executor, databaseName: string): Promise<number[]> {
  const rows = await db.execute<{ pid: number }>(sql`
    select pid from pg_stat_activity where datname is null or datname = ${databaseName}`);
  return rows.map((row) => row.pid);
}

export interface ServerSession {
  pid: number;
  /** The client's TCP port as the server sees it (null for background processes and Unix sockets). */
  clientPort: number | null;
  state: string | null;
  /** Whether the session is inside a transaction (holding whatever locks it took). */
  inTransaction: boolean;
}

/** The sessions of one database (pg_stat_activity): the chaos suite tells a process's own by their client ports. */
export async function databaseSessions(db: Executor, databaseName: string): Promise<ServerSession[]> {
  const rows = await db.execute<{ pid: number; client_port: number | null; state: string | null; in_transaction: boolean }>(sql`
    select pid, client_port, state, xact_start is not null as in_transaction
    from pg_stat_activity where datname = ${databaseName} and pid <> pg_backend_pid()`);
  return rows.map((row) => ({ pid: row.pid, clientPort: row.client_port, state: row.state, inTransaction: row.in_transaction }));
}
