import type { RewardClaim } from '../../shared/db/reward-store.js';
import type { WebhookFact } from '../../shared/db/webhook-message-store.js';
import type { SenderUserId } from '../../shared/domain/ids.js';
import { ONLY_RUN } from '../../shared/domain/recurrence.js';
import type { MatchUser } from '../../shared/domain/sources.js';
import { formatIsoMillis } from '../../shared/domain/timestamp.js';

/** A claim as its webhook facts and its reads show it. */
export function claimData(claim: RewardClaim) {
  const { reward } = claim;
  return {
    claim_id: claim.claimId,
    kind: claim.kind,
    quest_chain_id: claim.chainId,
    task_id: claim.taskId,
    reward: {
      ...(reward.id !== undefined ? { id: reward.id } : {}),
      type: reward.type,
      name: reward.name,
      value: reward.value,
      image_urls: reward.imageUrls,
    },
    prize: claim.prize ? { prize_id: claim.prize.prizeId, name: claim.prize.name, value: claim.prize.value } : null,
    claimed_at: formatIsoMillis(claim.claimedUs),
    // A run of a repeating chain is named by its start (docs/quest-language.md).
    period_start: claim.runStartUs === ONLY_RUN ? null : formatIsoMillis(claim.runStartUs),
  };
}

/** §10 `reward.claimed`, for the claiming user's platform only (claims are the platform's business). */
export function claimFact(platformId: string, platformUserId: SenderUserId, claim: RewardClaim): WebhookFact {
  return {
    providerId: platformId,
    type: 'reward.claimed',
    fact: `reward.claimed/${claim.claimId}`,
    data: { ...claimData(claim), platform_user_id: platformUserId },
  };
}

/**
 * `reward.reversed` (docs/reversals.md): the claimed completion no longer
 * stands on counting events; the reward is kept, marked reversed. For the
 * platform only, like the claim. Named by the time of the marking, so a claim
 * reversed again after standing again is announced again, and each marking once.
 */
export function reversalFact(user: MatchUser, claim: RewardClaim): WebhookFact {
  const reversedUs = claim.reversedUs ?? 0n;
  return {
    providerId: user.platformId,
    type: 'reward.reversed',
    fact: `reward.reversed/${claim.claimId}/${reversedUs}`,
    data: { ...claimData(claim), reversed_at: formatIsoMillis(reversedUs), platform_user_id: user.platformUserId },
  };
}
