import { listChainDefinitions, type ChainDefinition } from '../../shared/db/chain-store.js';
import type { CoreDeps } from '../deps.js';
import { pageOrRefuse, type Page, type PageRequest } from '../page.js';

/** A page of chains (every chain, or one platform's), newest first. */
export async function listChains(
  deps: Pick<CoreDeps, 'db'>,
  input: { platformId?: string | undefined; page: PageRequest },
): Promise<Page<ChainDefinition>> {
  return pageOrRefuse(await listChainDefinitions(deps.db, input.platformId, input.page), input.page);
}
