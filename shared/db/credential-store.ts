import { and, eq, inArray, type SQL } from 'drizzle-orm';
import type { ProviderType } from '../domain/permissions.js';
import { type Mode, modeOf, twinId } from '../domain/test-mode.js';
import type { Executor } from './client.js';
import { afterKey, type Page, type PageRequest, rowsToRead, toPage } from './keyset.js';
import { providerIsLive } from './provider-mode.js';
import { credentials, providers } from './schema/index.js';

/** A credential as stored: only the hash of its secret exists. */
export type Credential = typeof credentials.$inferSelect;

/** A credential as the admin sees it: never its hash, with the type of its provider and its mode (`providerId` is the live provider's). */
export type ProviderCredential = Pick<Credential, 'key' | 'providerId' | 'permissions' | 'status'> & {
  providerType: ProviderType;
  mode: Mode;
};

/** What authentication needs of a credential: its hash, its permissions and both statuses. */
export type CredentialForAuth = Pick<Credential, 'key' | 'secretHash' | 'status' | 'permissions' | 'providerId'> & {
  providerType: ProviderType;
  providerStatus: (typeof providers.$inferSelect)['status'];
  /** False for a test credential: its provider is a test twin (docs/test-mode.md). */
  livemode: boolean;
};

export async function insertCredential(
  db: Executor,
  values: Pick<typeof credentials.$inferInsert, 'key' | 'providerId' | 'secretHash' | 'permissions'>,
): Promise<Credential> {
  const [row] = await db.insert(credentials).values(values).returning();
  return row!;
}

/** The type and mode of the provider holding `key`; null when no credential has that key. */
export async function findCredentialProvider(db: Executor, key: string): Promise<{ type: ProviderType; mode: Mode } | null> {
  const [row] = await db
    .select({ type: providers.type, livemode: providerIsLive() })
    .from(credentials)
    .innerJoin(providers, eq(credentials.providerId, providers.id))
    .where(eq(credentials.key, key))
    .limit(1);
  return row ? { type: row.type, mode: modeOf(row.livemode) } : null;
}

/** The credential after the change; null when no credential has that key. */
export async function saveCredentialChanges(
  db: Executor,
  key: string,
  changes: Partial<Pick<typeof credentials.$inferInsert, 'status' | 'permissions'>>,
): Promise<Credential | null> {
  const [row] = await db.update(credentials).set(changes).where(eq(credentials.key, key)).returning();
  return row ?? null;
}

/** A page of a provider's credentials, oldest first; null when the cursor names none of its credentials. */
export async function listProviderCredentials(
  db: Executor,
  providerId: string,
  page: PageRequest,
): Promise<Page<ProviderCredential> | null> {
  const order = [credentials.createdAt, credentials.key] as const;
  let after: SQL | undefined;
  if (page.startingAfter !== undefined) {
    const [cursor] = await db
      .select({ createdAt: credentials.createdAt, key: credentials.key })
      .from(credentials)
      .where(and(inArray(credentials.providerId, [providerId, twinId(providerId)]), eq(credentials.key, page.startingAfter)));
    if (!cursor) return null;
    after = afterKey(order, [cursor.createdAt, cursor.key]);
  }
  // Its test credentials belong to its test twin (docs/test-mode.md).
  const rows = await db
    .select({
      key: credentials.key,
      providerType: providers.type,
      livemode: providerIsLive(),
      permissions: credentials.permissions,
      status: credentials.status,
    })
    .from(credentials)
    .innerJoin(providers, eq(credentials.providerId, providers.id))
    .where(and(inArray(credentials.providerId, [providerId, twinId(providerId)]), after))
    .orderBy(...order)
    .limit(rowsToRead(page.limit));
  const { items, hasMore } = toPage(rows, page.limit);
  return {
    items: items.map(({ livemode, ...row }) => ({ ...row, providerId, mode: modeOf(livemode) })),
    hasMore,
  };
}

/** The lookup behind every authenticated request (cached by the API for a few seconds). */
export async function findCredentialForAuth(db: Executor, key: string): Promise<CredentialForAuth | null> {
  const [row] = await db
    .select({
      key: credentials.key,
      secretHash: credentials.secretHash,
      status: credentials.status,
      permissions: credentials.permissions,
      providerId: providers.id,
      providerType: providers.type,
      providerStatus: providers.status,
      livemode: providerIsLive(),
    })
    .from(credentials)
    .innerJoin(providers, eq(credentials.providerId, providers.id))
    .where(eq(credentials.key, key))
    .limit(1);
  return row ?? null;
}
