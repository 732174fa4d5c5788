import { z } from '@hono/zod-openapi';
import type { ClaimedReward } from '../../../core/rewards/claim-reward.js';
import type { RewardsOverview } from '../../../core/rewards/list-rewards.js';
import { parseRewardCursor, REWARD_CURSOR_RULE } from '../../../core/rewards/reward-cursor.js';
import { claimData } from '../../../core/webhooks/claim-fact.js';
import type { StoredDraw } from '../../../shared/db/draw-store.js';
import type { ClaimableChainReward, ClaimableTaskReward, Reward, RewardClaim } from '../../../shared/db/reward-store.js';
import { OFFSET_TIMESTAMP_RULE, parseOffsetTimestamp } from '../../../shared/domain/chain-timestamp.js';
import { DRAW_ALGORITHM } from '../../../shared/domain/draw.js';
import { type ChainTiming, storedRun } from '../../../shared/domain/recurrence.js';
import { formatIsoMillis } from '../../../shared/domain/timestamp.js';
import { storableString } from '../../../shared/validation/json-value.js';
import { successEnvelope } from '../../http/envelope.js';
import { hasMoreField, pageQuerySchema } from '../../http/pagination.js';
import { claimableTaskSchema as activeClaimableTaskSchema, isoMillis } from '../shared-shapes.js';

export const claimRewardSchema = z
  .strictObject({
    platform_user_id: storableString().min(1).max(255).openapi({ example: 'user-123' }),
    task_id: z.uuid().optional().openapi({ description: "Claim this completed task's reward." }),
    quest_chain_id: z.uuid().optional().openapi({ description: "Claim this completed chain's chain reward." }),
    period_start: z
      .string()
      .refine((value) => parseOffsetTimestamp(value) !== null, OFFSET_TIMESTAMP_RULE)
      .optional()
      .openapi({
        format: 'date-time',
        description:
          "A repeating chain: the run to claim from, as its period_start in GET active (earlier runs' rewards stay claimable). Absent: the current run. Refused for a chain that does not repeat (docs/quest-language.md).",
      }),
  })
  .superRefine((body, ctx) => {
    if ((body.task_id === undefined) === (body.quest_chain_id === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give exactly one of task_id or quest_chain_id' });
    }
  })
  .openapi('ClaimReward', { example: { platform_user_id: 'user-123', task_id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d' } });

const rewardSchema = z
  .object({
    id: z.uuid().optional().openapi({ description: 'Chain rewards only: the chain reward id.' }),
    type: z.string(),
    name: z.string(),
    value: z.number().nullable(),
    image_urls: z.array(z.string()).nullable(),
  })
  .openapi('Reward');

const EXAMPLE_CLAIM = {
  claim_id: 'e4f5a6b7-c8d9-4e0f-9a1b-3c4d5e6f7a8b',
  kind: 'task',
  task_id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  quest_chain_id: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70',
  reward: { type: 'points', name: 'Welcome points', value: 100, image_urls: null },
  prize: null,
  claimed_at: '2026-01-02T03:05:00.000Z',
  reversed: false,
  reversed_at: null,
  period_start: null,
} as const;

const claimSchema = z
  .object({
    claim_id: z.uuid(),
    kind: z.enum(['task', 'chain']),
    task_id: z.uuid().nullable().openapi({ description: 'Null for a chain reward.' }),
    quest_chain_id: z.uuid(),
    reward: rewardSchema,
    prize: z.object({ prize_id: z.string(), name: z.string(), value: z.number().nullable() }).nullable().openapi({
      description:
        'A mystery box: the prize its draw gave (GET /v1/rewards/draws/{claim_id} shows how); null for any other reward.',
    }),
    claimed_at: isoMillis(),
    reversed: z.boolean().openapi({
      description:
        'The claimed completion no longer stands on counting events (an event was reversed): the reward is kept, marked reversed (docs/reversals.md).',
    }),
    reversed_at: isoMillis().nullable().openapi({ description: 'When it was marked reversed; null while it stands.' }),
    period_start: isoMillis()
      .nullable()
      .openapi({ description: 'A repeating chain: the run claimed from; null for a chain that does not repeat.' }),
  })
  .openapi('RewardClaim', { example: EXAMPLE_CLAIM });

const claimResultSchema = claimSchema
  .extend({
    already_claimed: z
      .boolean()
      .openapi({ description: 'True when this reward had been claimed before: the first claim is returned.' }),
  })
  .openapi('RewardClaimResult', {
    example: { ...EXAMPLE_CLAIM, already_claimed: false },
  });

// The element of the active read's claimable_tasks, marked as a task reward.
const claimableTaskSchema = activeClaimableTaskSchema.extend({ kind: z.literal('task') }).openapi('ClaimableTaskReward', {
  example: {
    kind: 'task',
    task_id: 'b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e',
    quest_chain_id: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70',
    sequence_number: 2,
    reward_type: 'points',
    reward_name: 'Deposit bonus',
    reward_value: 250,
    reward_image_urls: null,
    completed_at: '2026-01-03T09:00:00.000Z',
    claimable_at: '2026-01-03T09:00:00.000Z',
    period_start: null,
    period_end: null,
  },
});

const claimableChainSchema = z
  .object({
    kind: z.literal('chain'),
    quest_chain_id: z.uuid(),
    reward: rewardSchema,
    claimable_at: isoMillis().openapi({
      description: "The chain's completion plus its reward_hold_seconds: from when a claim is accepted.",
    }),
    period_start: isoMillis().nullable().openapi({
      description:
        'A repeating chain: the run completed (claim it with this period_start); null for a chain that does not repeat.',
    }),
    period_end: isoMillis().nullable(),
  })
  .openapi('ClaimableChainReward', {
    example: {
      kind: 'chain',
      quest_chain_id: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70',
      reward: {
        id: 'd3e4f5a6-b7c8-4d9e-8f0a-2b3c4d5e6f7a',
        type: 'mystery_box',
        name: 'Mystery box',
        value: 5,
        image_urls: ['https://example.com/box.png'],
      },
      claimable_at: '2026-01-03T09:00:00.000Z',
      period_start: null,
      period_end: null,
    },
  });

const rewardsOverviewSchema = z
  .object({
    claimable: z.array(z.union([claimableTaskSchema, claimableChainSchema])),
    claimed: z.array(claimSchema),
    has_more: hasMoreField(),
  })
  .openapi('Rewards');

export const rewardsPageQuery = pageQuerySchema(
  z.string().refine((text) => parseRewardCursor(text) !== null, REWARD_CURSOR_RULE),
  "the page's last entry: the last `claimed` entry's `claim_id`, or when `claimed` is empty the last `claimable` entry's `task_id` (kind `task`) or `quest_chain_id` (kind `chain`); for an entry with a `period_start` (a repeating chain's run), followed by `@` and that `period_start`, as in `c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70@2026-01-02T00:00:00.000Z`",
);

export const claimResponseSchema = successEnvelope(claimResultSchema);
export const rewardsResponseSchema = successEnvelope(rewardsOverviewSchema);

const toRewardResponse = (reward: Reward) => ({
  ...(reward.id !== undefined ? { id: reward.id } : {}),
  type: reward.type,
  name: reward.name,
  value: reward.value,
  image_urls: reward.imageUrls,
});

const toClaimResponse = (claim: RewardClaim) => ({
  ...claimData(claim),
  reversed: claim.reversedUs !== null,
  reversed_at: claim.reversedUs === null ? null : formatIsoMillis(claim.reversedUs),
});

export const toClaimResultResponse = (claim: ClaimedReward) => ({
  ...toClaimResponse(claim),
  already_claimed: claim.alreadyClaimed,
});

const toClaimableTaskResponse = (entry: ClaimableTaskReward) => ({
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
  ...runBounds(entry.timing, entry.runStartUs),
});

/** The run a stored run start names, as period_start and period_end (both null for a chain that does not repeat). */
function runBounds(timing: ChainTiming, runStartUs: bigint) {
  const run = storedRun(timing, runStartUs);
  return {
    period_start: run === null ? null : formatIsoMillis(run.startUs),
    period_end: run === null ? null : formatIsoMillis(run.endUs),
  };
}

const toClaimableChainResponse = (entry: ClaimableChainReward) => ({
  kind: 'chain' as const,
  quest_chain_id: entry.chainId,
  reward: toRewardResponse(entry.reward),
  claimable_at: formatIsoMillis(entry.claimableUs),
  ...runBounds(entry.timing, entry.runStartUs),
});

/** One page of the list: task rewards (oldest completion first), then chain rewards, then claims oldest first. */
export const toRewardsResponse = (rewards: RewardsOverview) => ({
  claimable: [...rewards.claimableTasks.map(toClaimableTaskResponse), ...rewards.claimableChains.map(toClaimableChainResponse)],
  claimed: rewards.claimed.map(toClaimResponse),
  has_more: rewards.hasMore,
});

export const drawParams = z.object({
  claim_id: z.uuid().openapi({ param: { name: 'claim_id', in: 'path' }, example: 'e4f5a6b7-c8d9-4e0f-9a1b-3c4d5e6f7a8b' }),
});

const drawSchema = z
  .object({
    claim_id: z.uuid().openapi({ description: 'The HMAC message: this text, as written here.' }),
    quest_chain_id: z.uuid(),
    algorithm: z
      .literal(DRAW_ALGORITHM)
      .openapi({ description: 'How the prize follows from the inputs (docs/mystery-boxes.md).' }),
    seed_hash: z
      .string()
      .openapi({ description: 'SHA-256 (hex) of the seed bytes: the commitment published (draw_seed_hash) before the draw.' }),
    server_seed: z
      .string()
      .nullable()
      .openapi({ description: 'The seed (32 bytes, hex) once revealed (rotated, or the chain ended); null until then.' }),
    seed_revealed_at: isoMillis().nullable(),
    candidates: z
      .array(z.object({ prize_id: z.string(), weight: z.number().int() }))
      .openapi({ description: 'The prizes in stock at the draw, in prize-table order.' }),
    total_weight: z.number().int(),
    digest: z.string().openapi({ description: 'HMAC-SHA256(seed bytes, claim_id), hex.' }),
    roll: z
      .number()
      .int()
      .openapi({ description: "The digest's first 8 bytes as an unsigned big-endian integer, modulo total_weight." }),
    prize_id: z.string().openapi({ description: 'The first candidate whose running total of weights passes roll.' }),
    drawn_at: isoMillis(),
  })
  .openapi('MysteryBoxDraw', {
    example: {
      claim_id: 'e4f5a6b7-c8d9-4e0f-9a1b-3c4d5e6f7a8b',
      quest_chain_id: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70',
      algorithm: 'hmac-sha256:u64be-mod-total-weight',
      seed_hash: '9f2c0d6d1f7f0b7a3c6b1f1e0c4a2d8e5b7a9c3d1e2f4a6b8c0d2e4f6a8b0c2d',
      server_seed: null,
      seed_revealed_at: null,
      candidates: [
        { prize_id: 'gold', weight: 1 },
        { prize_id: 'silver', weight: 100 },
      ],
      total_weight: 101,
      digest: '3b1f0c5e9a7d2b4c6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d',
      roll: 57,
      prize_id: 'silver',
      drawn_at: '2026-01-02T03:05:00.000Z',
    },
  });

export const drawResponseSchema = successEnvelope(drawSchema);

export const toDrawResponse = (draw: StoredDraw) => ({
  claim_id: draw.claimId,
  quest_chain_id: draw.chainId,
  algorithm: DRAW_ALGORITHM,
  seed_hash: draw.seedHash,
  server_seed: draw.serverSeed,
  seed_revealed_at: draw.seedRevealedUs === null ? null : formatIsoMillis(draw.seedRevealedUs),
  candidates: draw.candidates,
  total_weight: draw.totalWeight,
  digest: draw.digest,
  roll: draw.roll,
  prize_id: draw.prizeId,
  drawn_at: formatIsoMillis(draw.drawnUs),
});
