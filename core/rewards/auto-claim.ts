import { deleteAutoClaim, findAutoClaim } from '../../shared/db/auto-claim-store.js';
import { ONLY_RUN } from '../../shared/domain/recurrence.js';
import { DomainError, type DomainErrorCode } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';
import { claimReward } from './claim-reward.js';

/** What one auto-claim came to: claimed now, found claimed, refused for good (the code), or left for later. */
export type AutoClaimOutcome =
  | { status: 'claimed' | 'already_claimed'; claimId: string }
  | { status: 'refused'; code: DomainErrorCode }
  | { status: 'not_due' | 'gone' };

/**
 * Product rules §18.5: the service claims a reward of an auto-claim chain,
 * earned in a batch that stored it (earned-auto-claims.ts), through the one
 * claim use-case, so every claim rule holds as for a platform's claim: the
 * reward hold, the cap and the budget, the mystery box's draw, one claim per
 * reward and run (a repeat finds the first), the hold of a reversal, the
 * reward.claimed fact, the points credit. Idempotent: the row is deleted only
 * once the claim is made, found made, or refused for good; a failure leaves
 * it for the job's retry or the sweeper. A reward still on hold stays (its job
 * ran early): the sweeper queues it again once due.
 */
export async function runAutoClaim(
  deps: Pick<CoreDeps, 'db' | 'webhooks' | 'changes'> &
    /** Leaderboards' standings (§19), refreshed after a points credit; without them the worker's sweeper refreshes. */
    Partial<Pick<CoreDeps, 'standings' | 'config' | 'logger'>>,
  input: { autoClaimId: string },
): Promise<AutoClaimOutcome> {
  const waiting = await findAutoClaim(deps.db, input.autoClaimId);
  if (!waiting) return { status: 'gone' };
  if (waiting.dueUs > BigInt(Date.now()) * 1000n) return { status: 'not_due' };
  let outcome: AutoClaimOutcome;
  try {
    const claim = await claimReward(deps, {
      platformId: waiting.platformId,
      platformUserId: waiting.platformUserId,
      runStartUs: waiting.runStartUs === ONLY_RUN ? undefined : waiting.runStartUs,
      ...(waiting.taskId !== null ? { taskId: waiting.taskId } : { chainId: waiting.chainId }),
    });
    outcome = { status: claim.alreadyClaimed ? 'already_claimed' : 'claimed', claimId: claim.claimId };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    if (error.code === 'reward_on_hold') return { status: 'not_due' };
    // Refused as a platform's claim would be (budget, cap, stock, a completion undone since): nothing to retry.
    outcome = { status: 'refused', code: error.code };
  }
  await deleteAutoClaim(deps.db, waiting.id);
  return outcome;
}
