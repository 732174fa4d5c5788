import { generateKey, generateSecret, hashSecret } from '../../shared/auth/secrets.js';
import { insertCredential, type ProviderCredential } from '../../shared/db/credential-store.js';
import { ensureTestTwin, findProvider } from '../../shared/db/provider-store.js';
import type { Mode } from '../../shared/domain/test-mode.js';
import { permissionsFor } from '../../shared/domain/permissions.js';
import { notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';
import { checkPermissions } from './check-permissions.js';

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
  const permissions = input.permissions === undefined ? permissionsFor(provider.type) : checkPermissions(provider.type, input.permissions);
  const secret = generateSecret(mode);
  // A test credential belongs to the provider's test twin (docs/test-mode.md): every tenancy rule then keeps its data apart.
  const holderId = mode === 'test' ? await ensureTestTwin(deps.db, provider) : provider.id;
  const row = await insertCredential(deps.db, { key: generateKey(mode), providerId: holderId, secretHash: hashSecret(secret), permissions });
  return { key: row.key, providerId: provider.id, providerType: provider.type, permissions: row.permissions, status: row.status, mode, secret };
}
