import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import { chainProgress, users } from './schema/index.js';
import { instant } from './sql-fragments.js';

type UserColumns = typeof users.$inferSelect;

/** A platform's user as registration answers it. */
export type StoredUser = Pick<UserColumns, 'id' | 'createdAt'>;

/** A new platform user: created with needs_evaluation set, so events received before it are matched. */
export type NewUser = Pick<typeof users.$inferInsert, 'platformId' | 'platformUserId' | 'countryCode' | 'userMetadata'>;

/** Inserts the user unless the platform already registered that id; undefined then (the unique key decided). */
export async function insertUserIfNew(db: Executor, user: NewUser): Promise<StoredUser | undefined> {
  const [created] = await db
    .insert(users)
    .values(user)
    .onConflictDoNothing({ target: [users.platformId, users.platformUserId] })
    .returning({ id: users.id, createdAt: users.createdAt });
  return created;
}

/**
 * A platform's user by its id there, or undefined when that platform has not
 * registered them. Scoped by platform, so another platform's user is unknown
 * here (tenancy: no leak).
 */
export async function findPlatformUser(db: Executor, platformId: string, platformUserId: string): Promise<StoredUser | undefined> {
  const [user] = await db
    .select({ id: users.id, createdAt: users.createdAt })
    .from(users)
    .where(and(eq(users.platformId, platformId), eq(users.platformUserId, platformUserId)))
    .limit(1);
  return user;
}

/** The service user id of a platform's user, or null (see findPlatformUser). */
export async function findUserId(db: Executor, platformId: string, platformUserId: string): Promise<string | null> {
  const [user] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.platformId, platformId), eq(users.platformUserId, platformUserId)));
  return user?.id ?? null;
}

/** Every stored event of the user must be matched again (a new link made earlier events count). */
export async function flagUserForEvaluation(db: Executor, userId: string): Promise<void> {
  await db.update(users).set({ needsEvaluation: true }).where(eq(users.id, userId));
}

/**
 * Flags every user of a platform whose events must be matched against
 * something new (a chain): the reconciler re-evaluates them. Users already
 * flagged are left alone (no needless row versions).
 */
export async function flagPlatformUsersForEvaluation(db: Executor, platformId: string): Promise<void> {
  await db
    .update(users)
    .set({ needsEvaluation: true })
    .where(and(eq(users.platformId, platformId), eq(users.needsEvaluation, false)));
}

/** A user's latest progress change: its stamp and the chains whose progress it rewrote. */
export interface ProgressChange {
  changedUs: bigint;
  /** Sorted chain ids. */
  chainIds: string[];
}

/**
 * The user's latest progress change if it is after `sinceUs` (null: any
 * recorded change), with the chains whose progress was rewritten since then;
 * null when nothing changed. One statement.
 */
export async function loadProgressChangeSince(db: Executor, userId: string, sinceUs: bigint | null): Promise<ProgressChange | null> {
  const after = (column: typeof users.progressChangedAt | typeof chainProgress.updatedAt) =>
    sinceUs === null ? sql`true` : sql`${column} > ${instant(sinceUs)}`;
  const [row] = await db
    .select({
      changedUs: users.progressChangedAt,
      chainIds: sql<string[]>`coalesce(
        (select array_agg(${chainProgress.chainId}::text order by ${chainProgress.chainId})
         from ${chainProgress} where ${chainProgress.userId} = ${users.id} and ${after(chainProgress.updatedAt)}),
        '{}'::text[])`,
    })
    .from(users)
    .where(and(eq(users.id, userId), isNotNull(users.progressChangedAt), after(users.progressChangedAt)));
  if (!row || row.changedUs === null) return null;
  return { changedUs: row.changedUs, chainIds: row.chainIds };
}
