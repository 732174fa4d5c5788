import type { SenderUserId } from '../../../shared/domain/ids.js';
import type { RewardClaim } from '../../../shared/db/reward-store.js';
import type { WebhookFact } from '../../../shared/db/webhook-message-store.js';
import { formatIsoMillis } from '../../../shared/domain/timestamp.js';

/** §10 `reward.claimed`, for the claiming user's platform only (claims are the platform's business). */
export function claimFact(platformId: string, platformUserId: SenderUserId, claim: RewardClaim): WebhookFact {
  const { reward } = claim;
  return {
    providerId: platformId,
    type: 'reward.claimed',
    fact: `reward.claimed/${claim.claimId}`,
    data: {
      claim_id: claim.claimId,
      kind: claim.kind,
      quest_chain_id: claim.chainId,
      task_id: claim.taskId,
      reward: { ...(reward.id !== undefined ? { id: reward.id } : {}), type: reward.type, name: reward.name, value: reward.value, image_urls: reward.imageUrls },
      claimed_at: formatIsoMillis(claim.claimedUs),
      platform_user_id: platformUserId,
    },
  };
}
