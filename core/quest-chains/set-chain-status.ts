import { updateChainStatus, type ChainDefinition, type ChainStatus } from '../../shared/db/chain-store.js';
import { notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';
import { getChain } from './get-chain.js';

/**
 * Any status may follow any other. The matcher counts events for chains in
 * every status (progress is a function of the events alone), so a status
 * change needs no re-evaluation: it only decides what GET active shows.
 */
export async function setChainStatus(deps: Pick<CoreDeps, 'db'>, input: { chainId: string; status: ChainStatus }): Promise<ChainDefinition> {
  if (!(await updateChainStatus(deps.db, input.chainId, input.status))) throw notFound(`Quest chain ${input.chainId} not found`, 'id');
  return getChain(deps, { chainId: input.chainId });
}
