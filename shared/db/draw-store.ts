import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Draw } from '../rewards/verifiable-draw.js';
import { insertDrawSeed, type PrizeRow } from './chain-store.js';
import type { Executor } from './client.js';
import { drawSeeds, questChains, rewardClaims, rewardDraws, rewardPrizes, users } from './schema/index.js';

/**
 * A mystery box's prize table, locked for the claim's transaction (in table
 * order, the order every claim takes them, so claims queue and never wait
 * in a cycle): the draw sees the stock every earlier claim left, and the
 * prize it takes is still there. Empty when the chain's reward has no prizes.
 */
export function lockPrizes(tx: Executor, chainId: string): Promise<PrizeRow[]> {
  return tx
    .select()
    .from(rewardPrizes)
    .where(eq(rewardPrizes.chainId, chainId))
    .orderBy(asc(rewardPrizes.position))
    .for('update');
}

/** The chain's current draw seed, held (FOR SHARE) so a rotation waits for the draw that uses it. */
export async function currentSeed(tx: Executor, chainId: string): Promise<{ id: string; serverSeed: string }> {
  const [seed] = await tx
    .select({ id: drawSeeds.id, serverSeed: drawSeeds.serverSeed })
    .from(drawSeeds)
    .where(and(eq(drawSeeds.chainId, chainId), isNull(drawSeeds.retiredAt)))
    .for('share');
  if (!seed) throw new Error(`mystery box of chain ${chainId} has prizes but no current draw seed`);
  return seed;
}

/** One fewer of a prize with a stock (the caller holds its row, so it is in stock); nothing for an unlimited one. */
export async function takePrize(tx: Executor, chainId: string, prize: PrizeRow): Promise<void> {
  if (prize.stock === null) return;
  await tx
    .update(rewardPrizes)
    .set({ stock: sql`${rewardPrizes.stock} - 1` })
    .where(and(eq(rewardPrizes.chainId, chainId), eq(rewardPrizes.prizeId, prize.prizeId)));
}

export async function insertDraw(
  tx: Executor,
  draw: Draw & { claimId: string; chainId: string; seedId: string; candidates: { prize_id: string; weight: number }[] },
) {
  await tx.insert(rewardDraws).values(draw);
}

/** A draw as published: its inputs, its outcome, and its seed, revealed or not. */
export interface StoredDraw {
  claimId: string;
  chainId: string;
  candidates: { prize_id: string; weight: number }[];
  digest: string;
  roll: number;
  totalWeight: number;
  prizeId: string;
  drawnUs: bigint;
  seedHash: string;
  /** Null until revealed: the seed was rotated, or the chain has ended. */
  serverSeed: string | null;
  seedRevealedUs: bigint | null;
}

/**
 * The draw of a claim made by a user of this platform; null when there is no
 * such draw for it. The seed is answered only once revealed: retired by a
 * rotation (since then), or the chain ended (status `ended`, or its
 * end_date passed: since then).
 */
export async function findDraw(db: Executor, platformId: string, claimId: string, nowUs: bigint): Promise<StoredDraw | null> {
  const [row] = await db
    .select({
      draw: rewardDraws,
      seedHash: drawSeeds.seedHash,
      serverSeed: drawSeeds.serverSeed,
      retiredUs: drawSeeds.retiredAt,
      chainStatus: questChains.status,
      chainEndUs: questChains.endDate,
      chainUpdatedUs: questChains.updatedAt,
    })
    .from(rewardDraws)
    .innerJoin(rewardClaims, eq(rewardClaims.id, rewardDraws.claimId))
    .innerJoin(users, eq(users.id, rewardClaims.userId))
    .innerJoin(drawSeeds, eq(drawSeeds.id, rewardDraws.seedId))
    .innerJoin(questChains, eq(questChains.id, rewardDraws.chainId))
    .where(and(eq(rewardDraws.claimId, claimId), eq(users.platformId, platformId)));
  if (!row) return null;
  const revealedUs =
    row.retiredUs ?? (row.chainStatus === 'ended' ? row.chainUpdatedUs : row.chainEndUs <= nowUs ? row.chainEndUs : null);
  const { seedId: _seedId, drawnAt, ...draw } = row.draw;
  return {
    ...draw,
    drawnUs: drawnAt,
    seedHash: row.seedHash,
    serverSeed: revealedUs === null ? null : row.serverSeed,
    seedRevealedUs: revealedUs,
  };
}

/**
 * Retires the chain's current seed (revealing it) and commits to a new one;
 * answers the retired seed and the new hash, or null when the chain's reward
 * has no draw seed. The update waits for draws holding the old seed.
 */
export async function rotateSeed(
  tx: Executor,
  chainId: string,
): Promise<{ retired: { seedHash: string; serverSeed: string }; seedHash: string } | null> {
  const [retired] = await tx
    .update(drawSeeds)
    .set({ retiredAt: sql`now()` })
    .where(and(eq(drawSeeds.chainId, chainId), isNull(drawSeeds.retiredAt)))
    .returning({ seedHash: drawSeeds.seedHash, serverSeed: drawSeeds.serverSeed });
  if (!retired) return null;
  return { retired, seedHash: await insertDrawSeed(tx, chainId) };
}

/** Sets what is left of a prize (null: unlimited); false when the chain has no such prize. */
export async function setPrizeStock(tx: Executor, chainId: string, prizeId: string, stock: number | null): Promise<boolean> {
  const updated = await tx
    .update(rewardPrizes)
    .set({ stock })
    .where(and(eq(rewardPrizes.chainId, chainId), eq(rewardPrizes.prizeId, prizeId)))
    .returning({ prizeId: rewardPrizes.prizeId });
  return updated.length > 0;
}
