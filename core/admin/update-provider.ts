import { setProviderStatus, type ActiveStatus, type Provider } from '../../shared/db/provider-store.js';
import { notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';

/** Activates or deactivates a provider; its credentials follow (each process within its credential cache's TTL). */
export async function updateProvider(deps: Pick<CoreDeps, 'db'>, input: { providerId: string; status: ActiveStatus }): Promise<Provider> {
  const provider = await setProviderStatus(deps.db, input.providerId, input.status);
  if (!provider) throw notFound(`Provider ${input.providerId} not found`, 'id');
  return provider;
}
