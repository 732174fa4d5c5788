import { z } from '@hono/zod-openapi';
import { OFFSET_TIMESTAMP_PATTERN, OFFSET_TIMESTAMP_RULE, parseOffsetTimestamp } from '../../../../shared/services/quest-chains/chain-timestamp.js';
import { CHAIN_STATUSES } from '../../../../shared/services/quest-chains/admin.js';
import { storableString } from '../../../../shared/validation/json-value.js';
import { successEnvelope } from '../../../http/envelope.js';
import { chainRewardShape, questChainShape, taskShape } from '../../quest-chains/schema.js';

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
