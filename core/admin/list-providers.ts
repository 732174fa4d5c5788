import { selectProviders, type Provider } from '../../shared/db/provider-store.js';
import type { CoreDeps } from '../deps.js';
import { pageOrRefuse, type Page, type PageRequest } from '../page.js';

/** A page of providers, oldest first. */
export async function listProviders(deps: Pick<CoreDeps, 'db'>, page: PageRequest): Promise<Page<Provider>> {
  return pageOrRefuse(await selectProviders(deps.db, page), page);
}
