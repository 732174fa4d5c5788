import type { Database } from '../db/client.js';
import type { ProviderType } from '../domain/permissions.js';
import { createCredential } from '../services/admin/credentials.js';
import { createProvider } from '../services/admin/providers.js';

export interface TestProvider {
  id: string;
  type: ProviderType;
  key: string;
  secret: string;
  /** The two API headers plus JSON content type. */
  headers: Record<string, string>;
}

/** A provider with one credential (all its type's permissions unless a list is given). */
export async function createTestProvider(
  db: Database,
  type: ProviderType,
  options: { name?: string; permissions?: string[] } = {},
): Promise<TestProvider> {
  const provider = await createProvider(db, { type, name: options.name ?? `test ${type}` });
  const credential = await createCredential(db, provider.id, options.permissions);
  return {
    id: provider.id,
    type,
    key: credential.key,
    secret: credential.secret,
    headers: { 'content-type': 'application/json', 'x-api-key': credential.key, 'x-api-secret': credential.secret },
  };
}
