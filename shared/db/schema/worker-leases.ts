import { sql } from 'drizzle-orm';
import { pgTable, text } from 'drizzle-orm/pg-core';
import { timestampUs } from '../columns.js';

/**
 * One row per running worker process: it renews `expires_at` every heartbeat.
 * A row whose lease lapsed belongs to a worker that stopped (SIGSTOP, a frozen
 * host, a lost network): another worker ends that worker's sessions (found by
 * their application_name, which carries `worker_id`) so its transactions and
 * locks go (shared/db/lease-store.ts). Times come from Postgres' clock only.
 */
export const workerLeases = pgTable('worker_leases', {
  workerId: text('worker_id').primaryKey(),
  startedAt: timestampUs('started_at', { precision: 3 }).notNull().default(sql`now()`),
  expiresAt: timestampUs('expires_at', { precision: 3 }).notNull(),
});
