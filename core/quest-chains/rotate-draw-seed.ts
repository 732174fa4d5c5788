import { rotateSeed } from '../../shared/db/draw-store.js';
import { withTransaction } from '../../shared/db/transaction.js';
import { conflict } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';
import { getChain } from './chains.js';

/**
 * Reveals the chain's current draw seed and commits to a new one (an
 * operator's rotation, docs/mystery-boxes.md): every draw made with the old
 * seed becomes recomputable by anyone, and later draws use the new one.
 */
export async function rotateDrawSeed(deps: Pick<CoreDeps, 'db'>, input: { chainId: string }) {
  const { chain } = await getChain(deps, input);
  const rotated = await withTransaction(deps.db, (tx) => rotateSeed(tx, input.chainId));
  if (!rotated) throw conflict('not_a_mystery_box', "The quest chain's reward is not a mystery box with prizes: it has no draw seed", 'id');
  return { ...rotated, platformId: chain.platformId };
}
