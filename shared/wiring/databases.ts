import type { Config } from '../config.js';
import { createDatabase, type DatabaseTimeouts } from '../db/client.js';

/** Whose statement limit a pool's sessions get: the API's short one or the worker's, which may replay a long history. */
type StatementBudget = 'api' | 'worker';

/** The session time limits of a process kind's pools (docs/operations.md, "Time limits"). */
function sessionTimeouts(config: Config, budget: StatementBudget): DatabaseTimeouts {
  return {
    statementMs: budget === 'api' ? config.API_STATEMENT_TIMEOUT_MS : config.WORKER_STATEMENT_TIMEOUT_MS,
    lockMs: config.DB_LOCK_TIMEOUT_MS,
    idleInTransactionMs: config.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  };
}

/**
 * A pool on DATABASE_URL (or `url`, the read replica's) named `applicationName`.
 * Without a `budget` the pool keeps createDatabase's defaults: the CLI's
 * commands are not held to the limits configured for the service's processes.
 */
export function openDatabase(
  config: Config,
  options: { applicationName: string; poolSize: number; budget?: StatementBudget; url?: string },
) {
  return createDatabase({
    url: options.url ?? config.DATABASE_URL,
    poolSize: options.poolSize,
    applicationName: options.applicationName,
    ...(options.budget ? { timeouts: sessionTimeouts(config, options.budget) } : {}),
  });
}
