import type { ChainDefinition } from '../../shared/db/chain-store.js';
import { rotateSeed, setPrizeStock } from '../../shared/db/draw-store.js';
import { withTransaction } from '../../shared/db/transaction.js';
import { conflict, notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';
import { getChain } from './chains.js';

// The operator's hands on a chain's mystery box (docs/mystery-boxes.md):
// what is left of each prize, and the draw seed.

/**
 * Sets what is left of one prize of a chain's mystery box (null: unlimited).
 * A box whose prizes were all out of stock is claimable again as soon as one
 * is restocked: claims read the stock in their own transaction.
 */
export async function restockPrize(
  deps: Pick<CoreDeps, 'db' | 'changes'>,
  input: { chainId: string; prizeId: string; stock: number | null },
): Promise<ChainDefinition> {
  if (!(await setPrizeStock(deps.db, input.chainId, input.prizeId, input.stock))) {
    // No such chain (getChain answers its 404), or no such prize in it.
    await getChain(deps, input);
    throw notFound(`Quest chain ${input.chainId} has no prize ${input.prizeId}`, 'prize_id');
  }
  const definition = await getChain(deps, input);
  // The stock left shapes the odds GET active publishes.
  await deps.changes.chainsChanged(definition.chain.platformId);
  return definition;
}

/**
 * Reveals the chain's current draw seed and commits to a new one (an
 * operator's rotation, docs/mystery-boxes.md): every draw made with the old
 * seed becomes recomputable by anyone, and later draws use the new one.
 */
export async function rotateDrawSeed(deps: Pick<CoreDeps, 'db' | 'changes'>, input: { chainId: string }) {
  const { chain } = await getChain(deps, input);
  const rotated = await withTransaction(deps.db, (tx) => rotateSeed(tx, input.chainId));
  if (!rotated)
    throw conflict('not_a_mystery_box', "The quest chain's reward is not a mystery box with prizes: it has no draw seed", 'id');
  // The new commitment is part of the chain's definition as GET active shows it.
  await deps.changes.chainsChanged(chain.platformId);
  return { ...rotated, platformId: chain.platformId };
}
