import { selectProviders, type Provider } from '../../../shared/db/provider-store.js';
import type { AppDeps } from '../../app-env.js';
import { pageOrRefuse, type Page, type PageRequest } from '../page.js';

/** A page of providers, oldest first. */
export async function listProviders(deps: Pick<AppDeps, 'db'>, page: PageRequest): Promise<Page<Provider>> {
  return pageOrRefuse(await selectProviders(deps.db, page), page);
}
