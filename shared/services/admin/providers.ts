import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { providers } from '../../db/schema/index.js';
import type { ProviderType } from '../../domain/permissions.js';
import { notFound } from '../../errors.js';
import { formatIsoMillis } from '../../domain/timestamp.js';

export type ProviderRow = typeof providers.$inferSelect;

export function providerView(row: ProviderRow) {
  return { id: row.id, type: row.type, name: row.name, status: row.status, created_at: formatIsoMillis(row.createdAt) };
}

export async function createProvider(db: Database, input: { type: ProviderType; name: string }): Promise<ProviderRow> {
  const [row] = await db.insert(providers).values(input).returning();
  return row!;
}

export async function listProviders(db: Database): Promise<ProviderRow[]> {
  return db.select().from(providers).orderBy(providers.createdAt);
}

export async function findProvider(db: Database, id: string): Promise<ProviderRow | null> {
  const [row] = await db.select().from(providers).where(eq(providers.id, id)).limit(1);
  return row ?? null;
}

export async function setProviderStatus(db: Database, id: string, status: 'active' | 'inactive'): Promise<ProviderRow> {
  const [row] = await db.update(providers).set({ status }).where(eq(providers.id, id)).returning();
  if (!row) throw notFound(`Provider ${id} not found`);
  return row;
}
