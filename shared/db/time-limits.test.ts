import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseTimeoutDefaults } from '../config.js';
import { useTestData } from '../testing/test-data.js';
import { createDatabase, type DatabaseTimeouts } from './client.js';
import { renewLease } from './lease-store.js';
import { isTimeLimitError } from './query-errors.js';
import { workerLeases } from './schema/index.js';
import { withTransaction } from './transaction.js';

// Every session the service opens carries statement_timeout, lock_timeout and
// idle_in_transaction_session_timeout (shared/db/client.ts): nothing it runs may wait, or hold locks, without end.

const { database } = useTestData('time_limits', { providers: false });
const pools: { close: () => Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
});

function pool(timeouts?: Partial<DatabaseTimeouts>) {
  const opened = createDatabase({ url: database.url, poolSize: 2, timeouts });
  pools.push(opened);
  return opened.db;
}

/** What `error` carries as its SQLSTATE, through drizzle's wrapper. */
const sqlState = (error: unknown) => ((error as { cause?: { code?: string } }).cause ?? (error as { code?: string })).code;

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('the statement should have been stopped'),
    (error: unknown) => error,
  );
}

describe('session time limits', () => {
  it('are set on every session by default', async () => {
    const [row] = await pool().execute<{ statement: string; lock: string; idle: string }>(sql`
      select current_setting('statement_timeout') as statement, current_setting('lock_timeout') as lock,
             current_setting('idle_in_transaction_session_timeout') as idle`);
    const seconds = (ms: number) => `${ms / 1000}s`;
    expect(row).toEqual({
      statement: seconds(databaseTimeoutDefaults.apiStatementMs),
      lock: seconds(databaseTimeoutDefaults.lockMs),
      idle: seconds(databaseTimeoutDefaults.idleInTransactionMs),
    });
  });

  it('stop a statement that runs too long', async () => {
    const error = await failure(pool({ statementMs: 200 }).execute(sql`select pg_sleep(5)`));
    expect(sqlState(error)).toBe('57014');
    expect(isTimeLimitError(error)).toBe(true);
  });

  it('stop a statement that waits too long for a lock', async () => {
    await renewLease(database.db, 'locked', 60_000);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    const holder = withTransaction(pool({ idleInTransactionMs: 0 }), async (tx) => {
      await renewLease(tx, 'locked', 60_000);
      locked();
      await held;
    });
    await holding;
    const error = await failure(renewLease(pool({ lockMs: 200 }), 'locked', 60_000));
    release();
    await holder;
    expect(sqlState(error)).toBe('55P03');
    expect(isTimeLimitError(error)).toBe(true);
  });

  it('end a session left idle inside its transaction, rolling back what it wrote', async () => {
    const idle = pool({ idleInTransactionMs: 200 });
    const outcome = withTransaction(idle, async (tx) => {
      await renewLease(tx, 'abandoned', 60_000);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await renewLease(tx, 'abandoned-again', 60_000);
    }).then(
      () => 'committed',
      (error: unknown) => error,
    );
    expect(await outcome).toBeInstanceOf(Error);
    const leases = await database.db.select({ workerId: workerLeases.workerId }).from(workerLeases);
    expect(leases.map((row) => row.workerId)).not.toContain('abandoned');
  });
});
