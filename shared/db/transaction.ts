import { PgTransaction } from 'drizzle-orm/pg-core';
import type { Executor, Transaction } from './client.js';

/**
 * Runs `fn` in a transaction: the caller's own when `executor` already is one
 * (so use-cases compose, and a test can wrap several in one), a new one otherwise.
 * The one transaction API of the codebase; postgres.js' `sql.begin` is not used.
 */
export function withTransaction<T>(executor: Executor, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  if (executor instanceof PgTransaction) return fn(executor as Transaction);
  return executor.transaction(fn);
}
