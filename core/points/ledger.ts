import type { Executor } from '../../shared/db/client.js';
import { appendEntry, claimCredits, type PointEntry } from '../../shared/db/points-store.js';
import type { ClaimMarks } from '../../shared/db/progress-store.js';
import type { RewardClaim } from '../../shared/db/reward-store.js';
import type { ServiceUserId } from '../../shared/domain/ids.js';
import { pointsOfClaim, reversalAmount } from '../../shared/domain/points.js';

// The ledger's writes that follow a claim's life (product rules §18.2-§18.3),
// each in the transaction that changes the claim: a new claim of a points
// reward credits its value; a claim marked reversed is debited what it
// credited, and credited it back when the mark clears.

/** §18.2: a new claim's credit, in the claim's transaction; nothing for a reward that is not points (or is worth 0). */
export async function creditClaim(tx: Executor, userId: ServiceUserId, claim: RewardClaim): Promise<PointEntry | null> {
  const amount = pointsOfClaim(claim.reward);
  if (amount === 0n) return null;
  return appendEntry(tx, { userId, kind: 'claim', amount, claimId: claim.claimId, questChainId: claim.chainId });
}

/**
 * §18.3: the claims whose mark a batch changed (markClaimsReversed), in the
 * matcher's transaction: each one that credited points gets a `reversal`
 * entry, the debit of its credit when newly marked, the credit back when its
 * mark cleared. The balance may go below zero. In user order, one statement
 * each: reversals are rare.
 */
export async function settleClaimMarks(tx: Executor, marks: ClaimMarks): Promise<PointEntry[]> {
  const credits = await claimCredits(tx, [...marks.reversed, ...marks.restored]);
  const reversed = new Set(marks.reversed);
  credits.sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : a.claimId < b.claimId ? -1 : 1));
  const entries: PointEntry[] = [];
  for (const credit of credits) {
    entries.push(
      await appendEntry(tx, {
        userId: credit.userId,
        kind: 'reversal',
        amount: reversalAmount(credit.credited, reversed.has(credit.claimId)),
        claimId: credit.claimId,
        questChainId: credit.questChainId,
      }),
    );
  }
  return entries;
}
