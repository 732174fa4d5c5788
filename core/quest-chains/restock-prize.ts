import { type ChainDefinition } from '../../shared/db/chain-store.js';
import { setPrizeStock } from '../../shared/db/draw-store.js';
import { notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';
import { getChain } from './chains.js';

/**
 * Sets what is left of one prize of a chain's mystery box (null: unlimited).
 * A box whose prizes were all out of stock is claimable again as soon as one
 * is restocked: claims read the stock in their own transaction.
 */
export async function restockPrize(deps: Pick<CoreDeps, 'db'>, input: { chainId: string; prizeId: string; stock: number | null }): Promise<ChainDefinition> {
  if (!(await setPrizeStock(deps.db, input.chainId, input.prizeId, input.stock))) {
    // No such chain (getChain answers its 404), or no such prize in it.
    await getChain(deps, input);
    throw notFound(`Quest chain ${input.chainId} has no prize ${input.prizeId}`, 'prize_id');
  }
  return getChain(deps, input);
}
