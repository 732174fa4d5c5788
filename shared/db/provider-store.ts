import { and, eq, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { ProviderType } from '../domain/permissions.js';
import { twinId } from '../domain/test-mode.js';
import type { Executor } from './client.js';
import { afterKey, type Page, type PageRequest, rowsToRead, toPage } from './keyset.js';
import { credentials, providers } from './schema/index.js';

/** A platform or an advertiser as stored (`createdAt` in epoch microseconds). */
export type Provider = typeof providers.$inferSelect;
export type ActiveStatus = Provider['status'];

export async function insertProvider(db: Executor, values: { type: ProviderType; name: string }): Promise<Provider> {
  const [row] = await db.insert(providers).values(values).returning();
  return row!;
}

/** A page of providers, oldest first; null when the cursor names no provider. */
export async function selectProviders(db: Executor, page: PageRequest): Promise<Page<Provider> | null> {
  const order = [providers.createdAt, providers.id] as const;
  let after: SQL | undefined;
  if (page.startingAfter !== undefined) {
    const cursor = await findProvider(db, page.startingAfter);
    if (!cursor) return null;
    after = afterKey(order, [cursor.createdAt, cursor.id]);
  }
  const rows = await db
    .select()
    .from(providers)
    .where(and(isNull(providers.liveProviderId), after))
    .orderBy(...order)
    .limit(rowsToRead(page.limit));
  return toPage(rows, page.limit);
}

/** The oldest active provider of this type and name (names are not unique: the first one made wins); null when none. */
export async function findActiveProviderByName(db: Executor, type: ProviderType, name: string): Promise<Provider | null> {
  const [row] = await db
    .select()
    .from(providers)
    .where(
      and(eq(providers.type, type), eq(providers.name, name), eq(providers.status, 'active'), isNull(providers.liveProviderId)),
    )
    .orderBy(providers.createdAt, providers.id)
    .limit(1);
  return row ?? null;
}

/** A live provider (the ids operators and integrators know); a test twin is not found by its own id. */
export async function findProvider(db: Executor, id: string): Promise<Provider | null> {
  const [row] = await db
    .select()
    .from(providers)
    .where(and(eq(providers.id, id), isNull(providers.liveProviderId)))
    .limit(1);
  return row ?? null;
}

/** The live provider with its new status, which its test twin takes too; null when there is no such provider. */
export async function setProviderStatus(db: Executor, id: string, status: ActiveStatus): Promise<Provider | null> {
  const rows = await db
    .update(providers)
    .set({ status })
    .where(or(and(eq(providers.id, id), isNull(providers.liveProviderId)), eq(providers.liveProviderId, id)))
    .returning();
  return rows.find((row) => row.id === id) ?? null;
}

/**
 * The test twin of a live provider (docs/test-mode.md), made on first use: same
 * type and status, id twinId(live id). Answers its id.
 */
export async function ensureTestTwin(db: Executor, live: Provider): Promise<string> {
  const id = twinId(live.id);
  await db
    .insert(providers)
    .values({ id, type: live.type, name: sql`${live.name} || ' (test)'`, status: live.status, liveProviderId: live.id })
    .onConflictDoNothing();
  return id;
}

/**
 * Of `providerIds`, those that are active and hold at least one active
 * credential: the providers whose live streams may stay open (one statement
 * for every provider with a stream in this process).
 */
export async function findProvidersServingLive(db: Executor, providerIds: readonly string[]): Promise<string[]> {
  if (providerIds.length === 0) return [];
  const rows = await db
    .selectDistinct({ id: providers.id })
    .from(providers)
    .innerJoin(credentials, and(eq(credentials.providerId, providers.id), eq(credentials.status, 'active')))
    .where(and(inArray(providers.id, [...providerIds]), eq(providers.status, 'active')));
  return rows.map((row) => row.id);
}
