import { eq, sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import { workerLeases } from './schema/index.js';

/**
 * Worker leases (schema/worker-leases.ts). A worker's sessions carry
 * `<applicationPrefix><workerId>` as application_name, so the sessions of a
 * worker whose lease lapsed can be found and ended without it saying which
 * they are: a stopped process cannot say anything.
 */

/** Starts or extends this worker's lease to `leaseMs` from now (Postgres' clock). */
export async function renewLease(db: Executor, workerId: string, leaseMs: number): Promise<void> {
  const expiresAt = sql`now() + make_interval(secs => ${leaseMs / 1000})`;
  await db
    .insert(workerLeases)
    .values({ workerId, expiresAt })
    .onConflictDoUpdate({ target: workerLeases.workerId, set: { expiresAt } });
}

/** Gives the lease up (clean shutdown), so no one waits for it to lapse. */
export async function releaseLease(db: Executor, workerId: string): Promise<void> {
  await db.delete(workerLeases).where(eq(workerLeases.workerId, workerId));
}

export type EndedWorker = {
  workerId: string;
  /** Sessions of that worker ended now (its open transactions rolled back, its locks released). */
  sessions: number;
};

/**
 * Removes every lapsed lease and ends the sessions of those workers with
 * pg_terminate_backend, in one statement. Ending a session works where the
 * server-side timeouts do not: a session of a stopped client that sits
 * `active` in ClientRead mid-statement. If the worker wakes, its transaction
 * is gone, so its commit fails and nothing it computed is stored.
 */
export async function endLapsedWorkers(db: Executor, applicationPrefix: string): Promise<EndedWorker[]> {
  const rows = await db.execute<EndedWorker>(sql`
    with lapsed as (
      delete from worker_leases where expires_at < now() returning worker_id
    ), ended as materialized (
      select a.application_name, pg_terminate_backend(a.pid) as ended
      from pg_stat_activity a join lapsed l on a.application_name = ${applicationPrefix} || l.worker_id
      where a.datname = current_database() and a.pid <> pg_backend_pid()
    )
    select l.worker_id as "workerId", (count(e.ended) filter (where e.ended))::int as sessions
    from lapsed l left join ended e on e.application_name = ${applicationPrefix} || l.worker_id
    group by l.worker_id`);
  return [...rows];
}

export type NamedSession = {
  pid: number;
  state: string | null;
  /** Inside a transaction: holding whatever locks it took. */
  inTransaction: boolean;
};

/** The other sessions of this database whose application_name is `applicationName` (a worker's, say). */
export async function sessionsNamed(db: Executor, applicationName: string): Promise<NamedSession[]> {
  const rows = await db.execute<NamedSession>(sql`
    select pid, state, xact_start is not null as "inTransaction"
    from pg_stat_activity
    where datname = current_database() and application_name = ${applicationName} and pid <> pg_backend_pid()`);
  return [...rows];
}
