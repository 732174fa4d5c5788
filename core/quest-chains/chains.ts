import {
  type ChainDefinition,
  type ChainStatus,
  findChainDefinition,
  listChainDefinitions,
  updateChainStatus,
} from '../../shared/db/chain-store.js';
import { notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';
import { type Page, type PageRequest, pageOrRefuse } from '../page.js';

// The admin API's stored chains: read one, list them, switch a status.

/** One chain with its tasks and reward; an unknown id is a 404. */
export async function getChain(deps: Pick<CoreDeps, 'db'>, input: { chainId: string }): Promise<ChainDefinition> {
  const definition = await findChainDefinition(deps.db, input.chainId);
  if (!definition) throw notFound(`Quest chain ${input.chainId} not found`, 'id');
  return definition;
}

/** A page of chains (every chain, or one platform's), newest first. */
export async function listChains(
  deps: Pick<CoreDeps, 'db'>,
  input: { platformId?: string | undefined; page: PageRequest },
): Promise<Page<ChainDefinition>> {
  return pageOrRefuse(await listChainDefinitions(deps.db, input.platformId, input.page), input.page);
}

/**
 * Any status may follow any other. The matcher counts events for chains in
 * every status (progress is a function of the events alone), so a status
 * change needs no re-evaluation: it only decides what GET active shows.
 */
export async function setChainStatus(
  deps: Pick<CoreDeps, 'db' | 'changes'>,
  input: { chainId: string; status: ChainStatus },
): Promise<ChainDefinition> {
  if (!(await updateChainStatus(deps.db, input.chainId, input.status)))
    throw notFound(`Quest chain ${input.chainId} not found`, 'id');
  const definition = await getChain(deps, { chainId: input.chainId });
  await deps.changes.chainsChanged(definition.chain.platformId);
  return definition;
}
