import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { credentials, providers } from '../../db/schema/index.js';
import { generateKey, generateSecret, hashSecret } from '../../auth/secrets.js';
import { isPermission, PERMISSIONS, permissionsFor, type ProviderType } from '../../domain/permissions.js';
import { invalidInput, notFound } from '../../errors.js';
import { findProvider } from './providers.js';

export interface CredentialView {
  key: string;
  provider_id: string;
  provider_type: ProviderType;
  permissions: string[];
  status: 'active' | 'inactive';
}

/** §1: every name must be known and holdable by the provider type; an empty list is allowed. */
export function checkPermissions(type: ProviderType, requested: readonly string[]): string[] {
  for (const permission of requested) {
    if (!isPermission(permission)) throw invalidInput(`permissions: unknown permission "${permission}"`);
    if (!(PERMISSIONS[permission] as readonly string[]).includes(type)) {
      throw invalidInput(`permissions: a ${type} cannot hold "${permission}"`);
    }
  }
  return [...new Set(requested)];
}

/** The secret is in the answer of this call only; afterwards just its hash exists. */
export async function createCredential(
  db: Database,
  providerId: string,
  requested: readonly string[] | undefined,
): Promise<CredentialView & { secret: string }> {
  const provider = await findProvider(db, providerId);
  if (!provider) throw notFound(`Provider ${providerId} not found`);
  const permissions = requested === undefined ? permissionsFor(provider.type) : checkPermissions(provider.type, requested);
  const secret = generateSecret();
  const [row] = await db
    .insert(credentials)
    .values({ key: generateKey(), providerId, secretHash: hashSecret(secret), permissions })
    .returning();
  return { ...credentialView(row!, provider.type), secret };
}

export async function updateCredential(
  db: Database,
  key: string,
  changes: { status?: 'active' | 'inactive' | undefined; permissions?: readonly string[] | undefined },
): Promise<CredentialView> {
  const [current] = await db
    .select({ type: providers.type })
    .from(credentials)
    .innerJoin(providers, eq(credentials.providerId, providers.id))
    .where(eq(credentials.key, key))
    .limit(1);
  if (!current) throw notFound(`Credential ${key} not found`);
  const set: Partial<typeof credentials.$inferInsert> = {};
  if (changes.status !== undefined) set.status = changes.status;
  if (changes.permissions !== undefined) set.permissions = checkPermissions(current.type, changes.permissions);
  if (Object.keys(set).length === 0) throw invalidInput('body: give status and/or permissions');
  const [row] = await db.update(credentials).set(set).where(eq(credentials.key, key)).returning();
  return credentialView(row!, current.type);
}

export async function listCredentials(db: Database, providerId: string): Promise<CredentialView[]> {
  const rows = await db
    .select({ credential: credentials, type: providers.type })
    .from(credentials)
    .innerJoin(providers, eq(credentials.providerId, providers.id))
    .where(eq(credentials.providerId, providerId))
    .orderBy(credentials.createdAt);
  return rows.map((row) => credentialView(row.credential, row.type));
}

function credentialView(row: typeof credentials.$inferSelect, type: ProviderType): CredentialView {
  return { key: row.key, provider_id: row.providerId, provider_type: type, permissions: row.permissions, status: row.status };
}
