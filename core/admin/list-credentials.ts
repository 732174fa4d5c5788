import { listProviderCredentials, type ProviderCredential } from '../../shared/db/credential-store.js';
import { findProvider } from '../../shared/db/provider-store.js';
import { notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';
import { pageOrRefuse, type Page, type PageRequest } from '../page.js';

/** A page of a provider's credentials (never their secrets), oldest first. */
export async function listCredentials(deps: Pick<CoreDeps, 'db'>, input: { providerId: string; page: PageRequest }): Promise<Page<ProviderCredential>> {
  if (!(await findProvider(deps.db, input.providerId))) throw notFound(`Provider ${input.providerId} not found`, 'id');
  return pageOrRefuse(await listProviderCredentials(deps.db, input.providerId, input.page), input.page);
}
