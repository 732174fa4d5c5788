import { sql } from 'drizzle-orm';
import type { Executor } from './client.js';

/** One round trip to Postgres; resolves once it answers (readiness probes). */
export async function pingDatabase(db: Executor): Promise<void> {
  await db.execute(sql`select 1`);
}
