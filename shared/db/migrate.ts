import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { ensureComingEventMonthTables } from './event-month-tables.js';
import { migrationsFolder } from './project-root.js';
import * as schema from './schema/index.js';
import { ensureDatabase } from './server-admin.js';

// Any constant works; it only has to be the same for every replica.
const MIGRATION_LOCK_KEY = 7_215_430_981;

/**
 * Creates the database when absent, then applies pending migrations while holding a session advisory lock, so any
 * number of replicas may start at once: one migrates, the others wait and
 * then find nothing left to do. Then makes sure the partitions of events for
 * the current month and the next ones exist (shared/db/event-month-tables.ts).
 * `folder`: the migrations to apply; another build's only for a benchmark's
 * A/B against that build (BENCH_SERVICE_ROOT, docs/performance.md).
 */
export async function migrateWithLock(databaseUrl: string, folder: string = migrationsFolder()): Promise<void> {
  // A first start against a fresh server: the database itself is part of what migrating sets up.
  await ensureDatabase(databaseUrl);
  const sql = postgres(databaseUrl, { max: 2, onnotice: () => {}, connection: { TimeZone: 'UTC' } });
  try {
    const lockConnection = await sql.reserve();
    try {
      await lockConnection`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
      await migrate(drizzle(sql), { migrationsFolder: folder });
      // Events are partitioned by month: the coming months' partitions exist before anything is stored.
      await ensureComingEventMonthTables(drizzle(sql, { schema }));
    } finally {
      await lockConnection`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.catch(() => {});
      lockConnection.release();
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}
