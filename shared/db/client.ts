import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
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
}

export function createDatabase(options: DatabaseOptions) {
  const sql = postgres(options.url, {
    max: options.poolSize ?? 10,
    onnotice: () => {},
    // Timestamps are compared and formatted as UTC everywhere; pin the session zone so text output is predictable.
    connection: { TimeZone: 'UTC', application_name: options.applicationName ?? 'quest-chain-rewards' },
    // Fail fast instead of queueing requests forever when Postgres is gone.
    connect_timeout: 10,
    // Reconnect within a second of Postgres' return, not after the driver's default of up to 20 s.
    backoff: reconnectDelaySeconds,
  });
  const db = drizzle(preparingClient(sql), { schema });
  // The raw client stays in here: every statement goes through `db` (and the data modules).
  return { db, close: () => sql.end({ timeout: 5 }) };
}
