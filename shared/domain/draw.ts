/**
 * The rules of a mystery box draw (docs/mystery-boxes.md), pure: from the
 * draw's digest (HMAC-SHA256 of the claim id under the seed, computed in
 * shared/rewards/verifiable-draw.ts) to the prize.
 *
 * - roll = the digest's first 8 bytes as an unsigned big-endian integer,
 *   modulo the total weight of the candidates (the prizes in stock at the
 *   draw, in prize-table order). Total weights stay below 2^27 (MAX_PRIZES
 *   and MAX_PRIZE_WEIGHT of chain-definition-rules.ts), so the modulo's
 *   bias is under 2^-37: far below anything a test could see;
 * - the prize is the first candidate whose running total of weights passes
 *   the roll.
 */
export interface PrizeWeight {
  prizeId: string;
  weight: number;
}

/** The name the draw answers carry for these steps. */
export const DRAW_ALGORITHM = 'hmac-sha256:u64be-mod-total-weight' as const;

export const totalWeight = (candidates: readonly PrizeWeight[]) => candidates.reduce((sum, prize) => sum + prize.weight, 0);

/** The digest's first 8 bytes, big-endian, modulo the total weight. */
export function rollOf(digest: Uint8Array, total: number): number {
  const first8 = new DataView(digest.buffer, digest.byteOffset, 8).getBigUint64(0, false);
  return Number(first8 % BigInt(total));
}

/** The candidate whose share of [0, total weight) holds the roll. */
export function prizeAtRoll(candidates: readonly PrizeWeight[], roll: number): string {
  let passed = 0;
  for (const prize of candidates) {
    passed += prize.weight;
    if (roll < passed) return prize.prizeId;
  }
  throw new Error(`roll ${roll} is past the total weight ${passed}`);
}

/** Published odds: each prize's weight over the total of the prizes in stock; 0 for one out of stock. */
export function prizeOdds<P extends { weight: number; inStock: boolean }>(prizes: readonly P[]): number[] {
  const total = prizes.reduce((sum, prize) => sum + (prize.inStock ? prize.weight : 0), 0);
  return prizes.map((prize) => (prize.inStock && total > 0 ? prize.weight / total : 0));
}
