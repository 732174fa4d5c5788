import {
  type ActiveStatus,
  insertProvider,
  type Provider,
  selectProviders,
  setProviderStatus,
} from '../../shared/db/provider-store.js';
import type { ProviderType } from '../../shared/domain/permissions.js';
import { notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';
import { type Page, type PageRequest, pageOrRefuse } from '../page.js';

// The admin API's providers: create, list, activate or deactivate.

export function createProvider(deps: Pick<CoreDeps, 'db'>, input: { type: ProviderType; name: string }): Promise<Provider> {
  return insertProvider(deps.db, { type: input.type, name: input.name });
}

/** A page of providers, oldest first. */
export async function listProviders(deps: Pick<CoreDeps, 'db'>, page: PageRequest): Promise<Page<Provider>> {
  return pageOrRefuse(await selectProviders(deps.db, page), page);
}

/** Activates or deactivates a provider; its credentials follow (each process within its credential cache's TTL). */
export async function updateProvider(
  deps: Pick<CoreDeps, 'db'>,
  input: { providerId: string; status: ActiveStatus },
): Promise<Provider> {
  const provider = await setProviderStatus(deps.db, input.providerId, input.status);
  if (!provider) throw notFound(`Provider ${input.providerId} not found`, 'id');
  return provider;
}
