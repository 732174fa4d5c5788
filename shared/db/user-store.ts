import { and, eq } from 'drizzle-orm';
import type { Executor } from './client.js';
import { users } from './schema/index.js';

/**
 * Flags every user of a platform for re-evaluation (the worker's reconciler
 * re-matches their stored events): a new chain may count events sent before it.
 */
export async function flagPlatformUsersForEvaluation(db: Executor, platformId: string): Promise<void> {
  await db
    .update(users)
    .set({ needsEvaluation: true })
    .where(and(eq(users.platformId, platformId), eq(users.needsEvaluation, false)));
}
