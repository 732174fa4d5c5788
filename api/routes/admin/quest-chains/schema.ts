import { z } from '@hono/zod-openapi';
import type { Page } from '../../../../core/page.js';
import { CHAIN_STATUSES, type ChainDefinition } from '../../../../shared/db/chain-store.js';
import { MAX_PRIZE_ID_LENGTH, MAX_PRIZE_STOCK } from '../../../../shared/domain/chain-definition-rules.js';
import { MODES } from '../../../../shared/domain/test-mode.js';
import { formatIsoMillis } from '../../../../shared/domain/timestamp.js';
import { storableString } from '../../../../shared/validation/json-value.js';
import { successEnvelope } from '../../../http/envelope.js';
import { hasMoreField, pageQueryShape } from '../../../http/pagination.js';
import {
  chainRewardShape,
  EXAMPLE_CHAIN,
  EXAMPLE_CHAIN_REWARD,
  EXAMPLE_PRIZES,
  EXAMPLE_TASKS,
  prizeShape,
  questChainShape,
  taskShape,
  toChainRewardResponse,
  toPrizesResponse,
  toQuestChainResponse,
  toTaskResponse,
} from '../../shared-shapes.js';

// The admin answers of a chain (as stored, with its bookkeeping), its path
// and list parameters, and the bodies of its changes. The create body is
// create-schema.ts.

export const updateChainSchema = z
  .strictObject({ status: z.enum(CHAIN_STATUSES) })
  .openapi('UpdateQuestChain', { example: { status: 'paused' } });

export const chainIdParams = z.object({
  id: z.uuid().openapi({ param: { name: 'id', in: 'path' }, example: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70' }),
});

export const prizeParams = chainIdParams.extend({
  prize_id: storableString()
    .min(1)
    .max(MAX_PRIZE_ID_LENGTH)
    .openapi({ param: { name: 'prize_id', in: 'path' }, example: 'gold' }),
});

export const restockSchema = z
  .strictObject({
    stock: z
      .number()
      .int()
      .min(0)
      .max(MAX_PRIZE_STOCK)
      .nullable()
      .openapi({ description: 'What is left of the prize from now on; null: unlimited.' }),
  })
  .openapi('RestockPrize', { example: { stock: 20 } });

export const rotatedSeedResponseSchema = successEnvelope(
  z
    .object({
      quest_chain_id: z.uuid(),
      draw_seed_hash: z.string().openapi({ description: 'The commitment to the new seed, used by every draw from now on.' }),
      revealed: z
        .object({ seed_hash: z.string(), server_seed: z.string() })
        .openapi({ description: 'The retired seed, revealed: every draw made with it can now be recomputed.' }),
    })
    .openapi('RotatedDrawSeed', {
      example: {
        quest_chain_id: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70',
        draw_seed_hash: '0b7e1d9c3a5f7e2d4c6b8a0f1e3d5c7b9a1f2e4d6c8b0a3f5e7d9c1b2a4f6e8d',
        revealed: {
          seed_hash: '9f2c0d6d1f7f0b7a3c6b1f1e0c4a2d8e5b7a9c3d1e2f4a6b8c0d2e4f6a8b0c2d',
          server_seed: '5f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0',
        },
      },
    }),
);

export const toRotatedSeedResponse = (
  chainId: string,
  rotated: { seedHash: string; retired: { seedHash: string; serverSeed: string } },
) => ({
  quest_chain_id: chainId,
  draw_seed_hash: rotated.seedHash,
  revealed: { seed_hash: rotated.retired.seedHash, server_seed: rotated.retired.serverSeed },
});

export const chainListQuery = z.object({
  platform_id: z
    .uuid()
    .optional()
    .openapi({
      param: { name: 'platform_id', in: 'query' },
      description: "Only this platform's chains.",
      example: '3f0c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
    }),
  ...pageQueryShape(z.uuid(), "the last chain's `quest_chain.id`"),
});

const chainDefinitionSchema = z
  .object({
    quest_chain: z
      .object({
        ...questChainShape,
        reward_hold_seconds: z.number().int(),
        mode: z.enum(MODES),
        budget: z.number().nullable(),
        budget_spent: z.number().openapi({ description: "What the chain's claims add up to so far." }),
        max_claims_per_reward: z.number().int().nullable(),
        max_completions: z.number().int().nullable(),
        admitted_users: z
          .number()
          .int()
          .openapi({ description: 'Places of max_completions taken so far (users admitted); counted with or without a cap.' }),
        auto_claim: z
          .boolean()
          .openapi({ description: "The service claims each of the chain's rewards when it is earned (docs/points.md)." }),
        created_at: z.string(),
        updated_at: z.string(),
      })
      .openapi('AdminQuestChain'),
    tasks: z.array(z.object(taskShape).openapi('AdminQuestTask')),
    chain_reward: z
      .object({
        ...chainRewardShape,
        prizes: z.array(
          z
            .object({
              ...prizeShape,
              stock: z.number().int().nullable().openapi({ description: 'What is left; null: unlimited.' }),
            })
            .openapi('AdminPrize'),
        ),
      })
      .openapi('AdminChainReward')
      .nullable(),
  })
  .openapi('QuestChainDefinition', {
    example: {
      quest_chain: {
        ...EXAMPLE_CHAIN,
        reward_hold_seconds: 0,
        mode: 'live',
        budget: 5000,
        budget_spent: 350,
        max_claims_per_reward: null,
        max_completions: 1000,
        admitted_users: 12,
        auto_claim: false,
        created_at: '2026-01-01T09:00:00.000Z',
        updated_at: '2026-01-01T09:00:00.000Z',
      },
      tasks: [...EXAMPLE_TASKS],
      chain_reward: {
        ...EXAMPLE_CHAIN_REWARD,
        prizes: [
          { ...EXAMPLE_PRIZES[0], stock: 20 },
          { ...EXAMPLE_PRIZES[1], stock: null },
        ],
      },
    },
  });

export const chainResponseSchema = successEnvelope(chainDefinitionSchema);
export const chainListResponseSchema = successEnvelope(
  z.object({ quest_chains: z.array(chainDefinitionSchema), has_more: hasMoreField() }),
);

/** The admin answer: the chain as stored, with ids (and its own bookkeeping times). */
export function toChainDefinitionResponse(definition: Pick<ChainDefinition, 'chain' | 'tasks' | 'reward'>) {
  const { chain, tasks, reward } = definition;
  return {
    quest_chain: {
      ...toQuestChainResponse(chain),
      reward_hold_seconds: chain.rewardHoldSeconds,
      mode: chain.mode,
      budget: chain.budget,
      budget_spent: chain.budgetSpent,
      max_claims_per_reward: chain.maxClaimsPerReward,
      max_completions: chain.maxCompletions,
      admitted_users: chain.admittedUsers,
      auto_claim: chain.autoClaim,
      created_at: formatIsoMillis(chain.createdAt),
      updated_at: formatIsoMillis(chain.updatedAt),
    },
    tasks: tasks.map(toTaskResponse),
    chain_reward: reward
      ? { ...toChainRewardResponse(reward), prizes: toPrizesResponse(reward.prizes, (prize) => ({ stock: prize.stock })) }
      : null,
  };
}

export type ChainDefinitionResponse = ReturnType<typeof toChainDefinitionResponse>;

/** A page of the admin list: the chains as stored, newest first. */
export const toChainListResponse = (page: Page<Pick<ChainDefinition, 'chain' | 'tasks' | 'reward'>>) => ({
  quest_chains: page.items.map(toChainDefinitionResponse),
  has_more: page.hasMore,
});
