import { and, eq, inArray } from 'drizzle-orm';
import type { ProviderType } from '../domain/permissions.js';
import type { Executor } from './client.js';
import { afterKey, rowsToRead, toPage, type Page, type PageRequest } from './keyset.js';
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
  let after;
  if (page.startingAfter !== undefined) {
    const cursor = await findProvider(db, page.startingAfter);
    if (!cursor) return null;
    after = afterKey(order, [cursor.createdAt, cursor.id]);
  }
  const rows = await db
    .select()
    .from(providers)
    .where(after)
    .orderBy(...order)
    .limit(rowsToRead(page.limit));
  return toPage(rows, page.limit);
}

/** The oldest active provider of this type and name (names are not unique: the first one made wins); null when none. */
export async function findActiveProviderByName(db: Executor, type: ProviderType, name: string): Promise<Provider | null> {
  const [row] = await db
    .select()
    .from(providers)
    .where(and(eq(providers.type, type), eq(providers.name, name), eq(providers.status, 'active')))
    .orderBy(providers.createdAt, providers.id)
    .limit(1);
  return row ?? null;
}

export async function findProvider(db: Executor, id: string): Promise<Provider | null> {
  const [row] = await db.select().from(providers).where(eq(providers.id, id)).limit(1);
  return row ?? null;
}

/** The provider with its new status; null when there is no such provider. */
export async function setProviderStatus(db: Executor, id: string, status: ActiveStatus): Promise<Provider | null> {
  const [row] = await db.update(providers).set({ status }).where(eq(providers.id, id)).returning();
  return row ?? null;
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
