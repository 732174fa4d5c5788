import { findChainDefinition, type ChainDefinition } from '../../shared/db/chain-store.js';
import { notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';

export async function getChain(deps: Pick<CoreDeps, 'db'>, input: { chainId: string }): Promise<ChainDefinition> {
  const definition = await findChainDefinition(deps.db, input.chainId);
  if (!definition) throw notFound(`Quest chain ${input.chainId} not found`, 'id');
  return definition;
}
