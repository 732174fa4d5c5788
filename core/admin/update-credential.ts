import {
  findCredentialProvider,
  saveCredentialChanges,
  type Credential,
  type ProviderCredential,
} from '../../shared/db/credential-store.js';
import type { ActiveStatus } from '../../shared/db/provider-store.js';
import { invalidInput, notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';
import { checkPermissions } from './check-permissions.js';
import { shownProviderId } from '../../shared/domain/test-mode.js';

/** Changes a credential's status and/or permissions (each process applies it within its credential cache's TTL). */
export async function updateCredential(
  deps: Pick<CoreDeps, 'db'>,
  input: { key: string; status?: ActiveStatus | undefined; permissions?: readonly string[] | undefined },
): Promise<ProviderCredential> {
  const holder = await findCredentialProvider(deps.db, input.key);
  if (!holder) throw notFound(`Credential ${input.key} not found`, 'key');
  const { type: providerType, mode } = holder;
  const changes: Partial<Pick<Credential, 'status' | 'permissions'>> = {};
  if (input.status !== undefined) changes.status = input.status;
  if (input.permissions !== undefined) changes.permissions = checkPermissions(providerType, input.permissions);
  if (Object.keys(changes).length === 0) throw invalidInput('body: give status and/or permissions', undefined, 'missing_field');
  const row = await saveCredentialChanges(deps.db, input.key, changes);
  if (!row) throw notFound(`Credential ${input.key} not found`, 'key');
  // A test credential belongs to its provider's test twin; the admin knows the live provider.
  return { key: row.key, providerId: shownProviderId(row.providerId, mode), providerType, permissions: row.permissions, status: row.status, mode };
}
