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

/**
 * The service user id of a platform's user, or null when that platform has
 * not registered them. Scoped by platform, so another platform's user is
 * unknown here (tenancy: no leak).
 */
export async function findUserId(db: Executor, platformId: string, platformUserId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.platformId, platformId), eq(users.platformUserId, platformUserId)));
  return row?.id ?? null;
}
