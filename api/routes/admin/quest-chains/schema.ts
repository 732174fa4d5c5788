import { z } from '@hono/zod-openapi';
import { CHAIN_STATUSES, type ChainDefinition } from '../../../../shared/db/chain-store.js';
import { OFFSET_TIMESTAMP_PATTERN, OFFSET_TIMESTAMP_RULE, parseOffsetTimestamp } from '../../../../shared/domain/chain-timestamp.js';
import { formatIsoMillis } from '../../../../shared/domain/timestamp.js';
import { storableString } from '../../../../shared/validation/json-value.js';
import { successEnvelope } from '../../../http/envelope.js';
import type { CreateChainInput } from '../../../use-cases/quest-chains/create-chain.js';
import {
  chainRewardShape,
  questChainShape,
  taskShape,
  toChainRewardResponse,
  toQuestChainResponse,
  toTaskResponse,
} from '../../quest-chains/schema.js';

// Bounds (docs/decisions.md, "Quest chains"): text fields match the event
// limits where they must meet event values (event_type 100, currency 10);
// names 200, descriptions 2000, URLs 2048, at most 100 tasks and 20 image
// URLs per reward. They keep one chain, and the read that lists it, small.
export const MAX_TASKS = 100;
const MAX_IMAGES = 20;

const name = () => storableString().trim().min(1).max(200);
const description = () => storableString().max(2000).nullish();
const httpUrl = () =>
  storableString()
    .max(2048)
    .pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }))
    .openapi({ type: 'string', format: 'uri', maxLength: 2048 });
const imageUrls = () => z.array(httpUrl()).max(MAX_IMAGES).nullish();
const amount = () => z.number().min(0);
const offsetTimestamp = () =>
  z
    .string()
    // One check (shape and calendar together) so a bad value gets one message.
    .refine((value) => parseOffsetTimestamp(value) !== null, OFFSET_TIMESTAMP_RULE)
    .openapi({
      pattern: OFFSET_TIMESTAMP_PATTERN.source,
      example: '2026-01-01T00:00:00+01:00',
      description: 'ISO 8601 with any offset; stored as the instant, answered in UTC.',
    });

const taskInputSchema = z
  .strictObject({
    sequence_number: z.number().int().min(1).max(MAX_TASKS),
    name: name(),
    description: description(),
    condition_event_type: storableString().min(1).max(100),
    condition_min_amount: amount().nullish(),
    condition_currency: storableString().min(1).max(10).nullish(),
    condition_after_timestamp: offsetTimestamp().nullish().openapi({ description: 'Events at or after this instant count.' }),
    condition_before_timestamp: offsetTimestamp().nullish().openapi({ description: 'Events strictly before this instant count.' }),
    reward_type: storableString().min(1).max(100),
    reward_name: name(),
    reward_value: amount(),
    reward_image_urls: imageUrls(),
  })
  .openapi('QuestTaskInput');

export const createChainSchema = z
  .strictObject({
    platform_id: z.uuid(),
    advertiser_id: z.uuid(),
    name: name(),
    description: description(),
    logo_url: httpUrl().nullish(),
    background_image_url: httpUrl().nullish(),
    start_date: offsetTimestamp(),
    end_date: offsetTimestamp().openapi({ description: 'Must be after start_date; events at or after it do not count.' }),
    status: z.enum(CHAIN_STATUSES).optional().openapi({ description: 'Default `active`.' }),
    allow_any_order: z.boolean().optional().openapi({ description: 'Default false.' }),
    tasks: z.array(taskInputSchema).min(1).max(MAX_TASKS).openapi({ description: 'sequence_number exactly 1..n.' }),
    chain_reward: z
      .strictObject({ type: storableString().min(1).max(100), name: name(), value: amount().nullish(), image_urls: imageUrls() })
      .nullish(),
  })
  .openapi('CreateQuestChain');

export type CreateChainBody = z.infer<typeof createChainSchema>;

export const updateChainSchema = z.strictObject({ status: z.enum(CHAIN_STATUSES) }).openapi('UpdateQuestChain');

export const chainIdParams = z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) });

export const chainListQuery = z.object({
  platform_id: z
    .uuid()
    .optional()
    .openapi({ param: { name: 'platform_id', in: 'query' }, description: "Only this platform's chains." }),
});

export const chainDefinitionSchema = z
  .object({
    quest_chain: z.object({ ...questChainShape, created_at: z.string(), updated_at: z.string() }).openapi('AdminQuestChain'),
    tasks: z.array(z.object(taskShape).openapi('AdminQuestTask')),
    chain_reward: z.object(chainRewardShape).openapi('AdminChainReward').nullable(),
  })
  .openapi('QuestChainDefinition');

export const chainResponseSchema = successEnvelope(chainDefinitionSchema);
export const chainListResponseSchema = successEnvelope(z.array(chainDefinitionSchema));

/** The instant of an offset timestamp the schema has already checked. */
const instant = (text: string) => parseOffsetTimestamp(text)!;
const instantOrNull = (text: string | null | undefined) => (text == null ? null : instant(text));

/** A validated create body in the use-case's terms (epoch microseconds, stated defaults). */
export function toCreateChainInput(body: CreateChainBody): CreateChainInput {
  return {
    platformId: body.platform_id,
    advertiserId: body.advertiser_id,
    name: body.name,
    description: body.description ?? null,
    logoUrl: body.logo_url ?? null,
    backgroundImageUrl: body.background_image_url ?? null,
    startDate: instant(body.start_date),
    endDate: instant(body.end_date),
    status: body.status ?? 'active',
    allowAnyOrder: body.allow_any_order ?? false,
    tasks: body.tasks.map((task) => ({
      sequenceNumber: task.sequence_number,
      name: task.name,
      description: task.description ?? null,
      conditionEventType: task.condition_event_type,
      conditionMinAmount: task.condition_min_amount ?? null,
      conditionCurrency: task.condition_currency ?? null,
      conditionAfterTimestamp: instantOrNull(task.condition_after_timestamp),
      conditionBeforeTimestamp: instantOrNull(task.condition_before_timestamp),
      rewardType: task.reward_type,
      rewardName: task.reward_name,
      rewardValue: task.reward_value,
      rewardImageUrls: task.reward_image_urls ?? null,
    })),
    reward: body.chain_reward
      ? {
          type: body.chain_reward.type,
          name: body.chain_reward.name,
          value: body.chain_reward.value ?? null,
          imageUrls: body.chain_reward.image_urls ?? null,
        }
      : null,
  };
}

/** The admin answer: the chain as stored, with ids (and its own bookkeeping times). */
export function toChainDefinitionResponse(definition: Pick<ChainDefinition, 'chain' | 'tasks' | 'reward'>) {
  const { chain, tasks, reward } = definition;
  return {
    quest_chain: { ...toQuestChainResponse(chain), created_at: formatIsoMillis(chain.createdAt), updated_at: formatIsoMillis(chain.updatedAt) },
    tasks: tasks.map(toTaskResponse),
    chain_reward: reward ? toChainRewardResponse(reward) : null,
  };
}

export type ChainDefinitionResponse = ReturnType<typeof toChainDefinitionResponse>;
