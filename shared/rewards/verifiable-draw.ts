import { createHash, createHmac } from 'node:crypto';
import { type PrizeWeight, prizeAtRoll, rollOf, totalWeight } from '../domain/draw.js';

/**
 * The verifiable draw (docs/mystery-boxes.md): digest = HMAC-SHA256(key =
 * the 32 seed bytes, message = the claim id as answers write it, lower-case
 * UUID text), then shared/domain/draw.ts' rules. The same seed, claim id and
 * candidates always give the same prize, so anyone holding the revealed
 * seed can recompute every draw (docs/verify-draw.mjs does, with node:crypto alone).
 */
export interface Draw {
  /** HMAC-SHA256 of the claim id under the seed, hex. */
  digest: string;
  roll: number;
  totalWeight: number;
  prizeId: string;
}

/** The published commitment to a seed: SHA-256 of its bytes, hex. */
export const seedHash = (seedHex: string) => createHash('sha256').update(Buffer.from(seedHex, 'hex')).digest('hex');

export function drawPrize(seedHex: string, claimId: string, candidates: readonly PrizeWeight[]): Draw {
  if (candidates.length === 0) throw new Error('a draw needs at least one prize in stock');
  const digest = createHmac('sha256', Buffer.from(seedHex, 'hex')).update(claimId, 'utf8').digest();
  const total = totalWeight(candidates);
  const roll = rollOf(digest, total);
  return { digest: digest.toString('hex'), roll, totalWeight: total, prizeId: prizeAtRoll(candidates, roll) };
}
