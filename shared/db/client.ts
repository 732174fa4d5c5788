import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { databaseTimeoutDefaults } from '../config.js';
import { reconnectDelaySeconds } from './connection-loss.js';
import { preparingClient } from './prepared-statements.js';
import * as schema from './schema/index.js';

export type Database = ReturnType<typeof createDatabase>['db'];
/** A transaction or the database itself: use-cases accept either, so they can join an outer transaction. */
export type Executor = Database | Transaction;
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

export interface DatabaseOptions {
  url: string;
  poolSize?: number;
  applicationName?: string;
  /** Session time limits in ms (0 = none); the API's defaults unless given. */
  timeouts?: Partial<DatabaseTimeouts>;
}

export interface DatabaseTimeouts {
  /** statement_timeout: a statement running longer is cancelled. */
  statementMs: number;
  /** lock_timeout: a statement waiting longer for a lock is cancelled. */
  lockMs: number;
  /** idle_in_transaction_session_timeout: a session idle this long inside a transaction is ended, freeing its locks. */
  idleInTransactionMs: number;
}

export function createDatabase(options: DatabaseOptions) {
  const timeouts = {
    statementMs: databaseTimeoutDefaults.apiStatementMs,
    lockMs: databaseTimeoutDefaults.lockMs,
    idleInTransactionMs: databaseTimeoutDefaults.idleInTransactionMs,
    ...options.timeouts,
  };
  const sql = postgres(options.url, {
    max: options.poolSize ?? 10,
    onnotice: () => {},
    connection: {
      // Timestamps are compared and formatted as UTC everywhere; pin the session zone so text output is predictable.
      TimeZone: 'UTC',
      application_name: options.applicationName ?? 'quest-chain-rewards',
      // Startup parameters, so every session of the pool has them from its first statement, at no
      // extra round trip: nothing the service runs may wait or hold its locks without end.
      statement_timeout: timeouts.statementMs,
      lock_timeout: timeouts.lockMs,
      idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
      // No JIT compilation: every statement here is short, and a plan whose cost
      // is overestimated (a partition whose statistics lag its growth) crosses
      // jit_above_cost and spends far longer compiling than running
      // (docs/performance.md, "What each change bought").
      jit: 'off',
    },
    // Fail fast instead of queueing requests forever when Postgres is gone.
    connect_timeout: 10,
    // Reconnect within a second of Postgres' return, not after the driver's default of up to 20 s.
    backoff: reconnectDelaySeconds,
  });
  const db = drizzle(preparingClient(sql), { schema });
  // The raw client stays in here: every statement goes through `db` (and the data modules).
  return { db, close: () => sql.end({ timeout: 5 }) };
}
