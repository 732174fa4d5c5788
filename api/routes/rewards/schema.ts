import { z } from '@hono/zod-openapi';
import { formatIsoMillis } from '../../../shared/domain/timestamp.js';
import type { ClaimableChainReward, ClaimableTaskReward, Reward, RewardClaim } from '../../../shared/db/reward-store.js';
import { storableString } from '../../../shared/validation/json-value.js';
import { successEnvelope } from '../../http/envelope.js';
import { claimableTaskSchema as activeClaimableTaskSchema } from '../quest-chains/schema.js';
import { isoMillis } from '../../http/common-schemas.js';
import { hasMoreField, pageQuerySchema } from '../../http/pagination.js';
import type { ClaimedReward } from '../../../core/use-cases/rewards/claim-reward.js';
import type { RewardsOverview } from '../../../core/use-cases/rewards/list-rewards.js';


export const claimRewardSchema = z
  .strictObject({
    platform_user_id: storableString().min(1).max(255).openapi({ example: 'user-123' }),
    task_id: z.uuid().optional().openapi({ description: "Claim this completed task's reward." }),
    quest_chain_id: z.uuid().optional().openapi({ description: "Claim this completed chain's chain reward." }),
  })
  .superRefine((body, ctx) => {
    if ((body.task_id === undefined) === (body.quest_chain_id === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give exactly one of task_id or quest_chain_id' });
    }
  })
  .openapi('ClaimReward', { example: { platform_user_id: 'user-123', task_id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d' } });

export const rewardSchema = z
  .object({
    id: z.uuid().optional().openapi({ description: 'Chain rewards only: the chain reward id.' }),
    type: z.string(),
    name: z.string(),
    value: z.number().nullable(),
    image_urls: z.array(z.string()).nullable(),
  })
  .openapi('Reward');

export const claimSchema = z
  .object({
    claim_id: z.uuid(),
    kind: z.enum(['task', 'chain']),
    task_id: z.uuid().nullable().openapi({ description: 'Null for a chain reward.' }),
    quest_chain_id: z.uuid(),
    reward: rewardSchema,
    claimed_at: isoMillis(),
    reversed: z.boolean().openapi({ description: 'The claimed completion no longer stands on counting events (an event was reversed): the reward is kept, marked reversed (docs/reversals.md).' }),
    reversed_at: isoMillis().nullable().openapi({ description: 'When it was marked reversed; null while it stands.' }),
  })
  .openapi('RewardClaim', {
    example: {
      claim_id: 'e4f5a6b7-c8d9-4e0f-9a1b-3c4d5e6f7a8b', kind: 'task', task_id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', quest_chain_id: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70',
      reward: { type: 'points', name: 'Welcome points', value: 100, image_urls: null }, claimed_at: '2026-01-02T03:05:00.000Z', reversed: false, reversed_at: null,
    },
  });

export const claimResultSchema = claimSchema
  .extend({ already_claimed: z.boolean().openapi({ description: 'True when this reward had been claimed before: the first claim is returned.' }) })
  .openapi('RewardClaimResult', {
    example: {
      claim_id: 'e4f5a6b7-c8d9-4e0f-9a1b-3c4d5e6f7a8b', kind: 'task', task_id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', quest_chain_id: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70',
      reward: { type: 'points', name: 'Welcome points', value: 100, image_urls: null }, claimed_at: '2026-01-02T03:05:00.000Z', reversed: false, reversed_at: null, already_claimed: false,
    },
  });

// The element of the active read's claimable_tasks, marked as a task reward.
export const claimableTaskSchema = activeClaimableTaskSchema
  .extend({ kind: z.literal('task') })
  .openapi('ClaimableTaskReward', {
    example: {
      kind: 'task', task_id: 'b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e', quest_chain_id: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70', sequence_number: 2, reward_type: 'points', reward_name: 'Deposit bonus', reward_value: 250,
      reward_image_urls: null, completed_at: '2026-01-03T09:00:00.000Z', claimable_at: '2026-01-03T09:00:00.000Z',
    },
  });

export const claimableChainSchema = z
  .object({
    kind: z.literal('chain'),
    quest_chain_id: z.uuid(),
    reward: rewardSchema,
    claimable_at: isoMillis().openapi({ description: "The chain's completion plus its reward_hold_seconds: from when a claim is accepted." }),
  })
  .openapi('ClaimableChainReward', { example: { kind: 'chain', quest_chain_id: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70', reward: { id: 'd3e4f5a6-b7c8-4d9e-8f0a-2b3c4d5e6f7a', type: 'mystery_box', name: 'Mystery box', value: 5, image_urls: ['https://example.com/box.png'] }, claimable_at: '2026-01-03T09:00:00.000Z' } });

export const rewardsOverviewSchema = z
  .object({
    claimable: z.array(z.union([claimableTaskSchema, claimableChainSchema])),
    claimed: z.array(claimSchema),
    has_more: hasMoreField(),
  })
  .openapi('Rewards');

export const rewardsPageQuery = pageQuerySchema(
  z.uuid(),
  "the page's last entry: the last `claimed` entry's `claim_id`, or when `claimed` is empty the last `claimable` entry's `task_id` (kind `task`) or `quest_chain_id` (kind `chain`)",
);

export const claimResponseSchema = successEnvelope(claimResultSchema);
export const rewardsResponseSchema = successEnvelope(rewardsOverviewSchema);

export const toRewardResponse = (reward: Reward) => ({
  ...(reward.id !== undefined ? { id: reward.id } : {}),
  type: reward.type,
  name: reward.name,
  value: reward.value,
  image_urls: reward.imageUrls,
});

export const toClaimResponse = (claim: RewardClaim) => ({
  claim_id: claim.claimId,
  kind: claim.kind,
  task_id: claim.taskId,
  quest_chain_id: claim.chainId,
  reward: toRewardResponse(claim.reward),
  claimed_at: formatIsoMillis(claim.claimedUs),
  reversed: claim.reversedUs !== null,
  reversed_at: claim.reversedUs === null ? null : formatIsoMillis(claim.reversedUs),
});

export const toClaimResultResponse = (claim: ClaimedReward) => ({ ...toClaimResponse(claim), already_claimed: claim.alreadyClaimed });

export const toClaimableTaskResponse = (entry: ClaimableTaskReward) => ({
  kind: 'task' as const,
  task_id: entry.taskId,
  quest_chain_id: entry.chainId,
  sequence_number: entry.sequenceNumber,
  reward_type: entry.reward.type,
  reward_name: entry.reward.name,
  reward_value: entry.reward.value ?? 0,
  reward_image_urls: entry.reward.imageUrls,
  completed_at: formatIsoMillis(entry.completedUs),
  claimable_at: formatIsoMillis(entry.claimableUs),
});

export const toClaimableChainResponse = (entry: ClaimableChainReward) => ({
  kind: 'chain' as const,
  quest_chain_id: entry.chainId,
  reward: toRewardResponse(entry.reward),
  claimable_at: formatIsoMillis(entry.claimableUs),
});

/** One page of the list: task rewards (oldest completion first), then chain rewards, then claims oldest first. */
export const toRewardsResponse = (rewards: RewardsOverview) => ({
  claimable: [...rewards.claimableTasks.map(toClaimableTaskResponse), ...rewards.claimableChains.map(toClaimableChainResponse)],
  claimed: rewards.claimed.map(toClaimResponse),
  has_more: rewards.hasMore,
});
