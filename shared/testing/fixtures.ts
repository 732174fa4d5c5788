import { generateKey, generateSecret, hashSecret } from '../auth/secrets.js';
import type { Database } from '../db/client.js';
import { insertCredential } from '../db/credential-store.js';
import { insertProvider } from '../db/provider-store.js';
import { type ProviderType, permissionsFor } from '../domain/permissions.js';

export interface TestProvider {
  id: string;
  type: ProviderType;
  key: string;
  secret: string;
  /** The two API headers plus JSON content type. */
  headers: Record<string, string>;
}

/**
 * A provider with one credential (all its type's permissions unless a list is
 * given), written through the data layer as the admin use-cases write them
 * (shared/ cannot call api/); the list is trusted, not checked against §1.
 */
export async function createTestProvider(
  db: Database,
  type: ProviderType,
  options: { name?: string; permissions?: string[] } = {},
): Promise<TestProvider> {
  const provider = await insertProvider(db, { type, name: options.name ?? `test ${type}` });
  const secret = generateSecret();
  const permissions = options.permissions === undefined ? permissionsFor(type) : [...new Set(options.permissions)];
  const { key } = await insertCredential(db, {
    key: generateKey(),
    providerId: provider.id,
    secretHash: hashSecret(secret),
    permissions,
  });
  return {
    id: provider.id,
    type,
    key,
    secret,
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'x-api-secret': secret },
  };
}
