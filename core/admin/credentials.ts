import { generateKey, generateSecret, hashSecret } from '../../shared/auth/secrets.js';
import {
  type Credential,
  findCredentialProvider,
  insertCredential,
  listProviderCredentials,
  type ProviderCredential,
  saveCredentialChanges,
} from '../../shared/db/credential-store.js';
import { type ActiveStatus, ensureTestTwin, findProvider } from '../../shared/db/provider-store.js';
import { permissionsFor } from '../../shared/domain/permissions.js';
import { type Mode, shownProviderId } from '../../shared/domain/test-mode.js';
import { invalidInput, notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';
import { type Page, type PageRequest, pageOrRefuse } from '../page.js';
import { checkPermissions } from './check-permissions.js';

// The admin API's credentials of a provider: create, list, update. Secrets
// are shown once, at creation; afterwards only their hash exists.

export type CreatedCredential = ProviderCredential & { secret: string };

/**
 * A new credential of the provider, with every permission of its type unless
 * a list is given. The secret is in the answer of this call only; afterwards just its hash exists.
 */
export async function createCredential(
  deps: Pick<CoreDeps, 'db'>,
  input: { providerId: string; permissions?: readonly string[] | undefined; mode?: Mode | undefined },
): Promise<CreatedCredential> {
  const mode = input.mode ?? 'live';
  const provider = await findProvider(deps.db, input.providerId);
  if (!provider) throw notFound(`Provider ${input.providerId} not found`, 'id');
  const permissions =
    input.permissions === undefined ? permissionsFor(provider.type) : checkPermissions(provider.type, input.permissions);
  const secret = generateSecret(mode);
  // A test credential belongs to the provider's test twin (docs/test-mode.md): every tenancy rule then keeps its data apart.
  const holderId = mode === 'test' ? await ensureTestTwin(deps.db, provider) : provider.id;
  const row = await insertCredential(deps.db, {
    key: generateKey(mode),
    providerId: holderId,
    secretHash: hashSecret(secret),
    permissions,
  });
  return {
    key: row.key,
    providerId: provider.id,
    providerType: provider.type,
    permissions: row.permissions,
    status: row.status,
    mode,
    secret,
  };
}

/** A page of a provider's credentials (never their secrets), oldest first. */
export async function listCredentials(
  deps: Pick<CoreDeps, 'db'>,
  input: { providerId: string; page: PageRequest },
): Promise<Page<ProviderCredential>> {
  if (!(await findProvider(deps.db, input.providerId))) throw notFound(`Provider ${input.providerId} not found`, 'id');
  return pageOrRefuse(await listProviderCredentials(deps.db, input.providerId, input.page), input.page);
}

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
  return {
    key: row.key,
    providerId: shownProviderId(row.providerId, mode),
    providerType,
    permissions: row.permissions,
    status: row.status,
    mode,
  };
}
