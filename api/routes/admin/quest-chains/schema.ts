import { z } from '@hono/zod-openapi';
import type { Page } from '../../../../core/page.js';
import type { CreateChainInput } from '../../../../core/quest-chains/create-chain.js';
import { CHAIN_STATUSES, type ChainDefinition } from '../../../../shared/db/chain-store.js';
import { isKnownTimezone } from '../../../../shared/domain/calendar.js';
import { OFFSET_TIMESTAMP_RULE, parseOffsetTimestamp } from '../../../../shared/domain/chain-timestamp.js';
import { MAX_PRIZE_WEIGHT, MAX_PRIZES } from '../../../../shared/domain/draw.js';
import { MODES } from '../../../../shared/domain/test-mode.js';
import { formatIsoMillis } from '../../../../shared/domain/timestamp.js';
import { storableString } from '../../../../shared/validation/json-value.js';
import { successEnvelope } from '../../../http/envelope.js';
import { hasMoreField, pageQueryShape } from '../../../http/pagination.js';
import {
  chainRewardShape,
  prizeShape,
  questChainShape,
  taskShape,
  toChainRewardResponse,
  toPrizesResponse,
  toQuestChainResponse,
  toTaskResponse,
} from '../../quest-chains/schema.js';

// Bounds (docs/decisions.md, "Quest chains"): text fields match the event
// limits where they must meet event values (event_type 100, currency 10);
// names 200, descriptions 2000, URLs 2048, at most 100 tasks and 20 image
// URLs per reward. They keep one chain, and the read that lists it, small.
export const MAX_TASKS = 100;
const MAX_MIN_COUNT = 10_000;
const MAX_STREAK_PERIODS = 366;
/** How many streak periods one run can hold: a day holds one day, a week seven days, a month 31 days and touches up to 6 Monday weeks. */
const MOST_STREAK_PERIODS_IN_A_RUN = {
  day: { day: 1, week: 1 },
  week: { day: 7, week: 1 },
  month: { day: 31, week: 6 },
} as const;
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
      format: 'date-time',
      example: '2026-01-01T00:00:00+01:00',
      description:
        'An ISO 8601 date-time with any offset (`Z`, `+01:00`) and up to 6 fractional digits; stored as the instant, answered in UTC.',
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
    condition_before_timestamp: offsetTimestamp()
      .nullish()
      .openapi({ description: 'Events strictly before this instant count.' }),
    reward_type: storableString().min(1).max(100),
    reward_name: name(),
    reward_value: amount(),
    reward_image_urls: imageUrls(),
    condition_min_count: z
      .number()
      .int()
      .min(1)
      .max(MAX_MIN_COUNT)
      .optional()
      .openapi({ description: 'How many counting events complete the task (docs/quest-language.md). Default 1.' }),
    condition_min_total: z.number().gt(0).max(1e12).nullish().openapi({
      description:
        "The sum of the counting events' amounts that completes the task; needs condition_currency (docs/quest-language.md).",
    }),
    condition_streak: z
      .strictObject({
        periods: z.number().int().min(2).max(MAX_STREAK_PERIODS),
        every: z.enum(['day', 'week']),
      })
      .nullish()
      .openapi('StreakCondition', {
        description:
          "Consecutive periods (days, or weeks from Monday, in the chain's timezone) each holding a counting event (docs/quest-language.md).",
      }),
  })
  .superRefine((task, context) => {
    // A sum is of amounts in one currency: without one, 5 USD and 5 JPY would add up.
    if (task.condition_min_total != null && task.condition_currency == null) {
      context.addIssue({
        code: 'custom',
        path: ['condition_min_total'],
        message: 'needs condition_currency (a total sums amounts of one currency)',
      });
    }
  })
  .openapi('QuestTaskInput');

const prizeInputSchema = z
  .strictObject({
    prize_id: storableString().trim().min(1).max(100),
    name: name(),
    value: amount().nullish().openapi({ description: "What this prize costs the chain's budget; absent: the box's value." }),
    weight: z
      .number()
      .int()
      .min(1)
      .max(MAX_PRIZE_WEIGHT)
      .openapi({ description: 'Odds are weight / the total weight of the prizes in stock.' }),
    stock: z
      .number()
      .int()
      .min(0)
      .max(1e9)
      .nullish()
      .openapi({ description: 'How many may be drawn; null or absent: unlimited.' }),
  })
  .openapi('PrizeInput');

/** 90 days: past a refund or chargeback window, a hold only delays honest users. */
export const MAX_REWARD_HOLD_SECONDS = 90 * 86_400;

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
    mode: z.enum(MODES).optional().openapi({
      description:
        "Default `live`. A `test` chain is matched for the providers' test credentials only, and a live one for live credentials only (docs/test-mode.md).",
    }),
    allow_any_order: z.boolean().optional().openapi({ description: 'Default false.' }),
    timezone: z
      .string()
      .max(64)
      .refine(isKnownTimezone, 'must be an IANA time zone name, e.g. Europe/Berlin')
      .optional()
      .openapi({
        description: 'The IANA time zone in which streak periods are counted (docs/quest-language.md). Default UTC.',
        example: 'Europe/Berlin',
      }),
    recurrence: z
      .strictObject({
        every: z.enum(['day', 'week', 'month']),
        timezone: z.string().max(64).refine(isKnownTimezone, 'must be an IANA time zone name, e.g. Europe/Berlin').optional(),
      })
      .nullish()
      .openapi('RecurrenceInput', {
        description:
          "A repeating chain: each calendar day, week (from Monday) or month inside [start_date, end_date), in `timezone` (default: the chain's), is a run of its own, with its own progress, completions and rewards; max_completions admits a user once, budget and max_claims_per_reward count every run's claims (docs/quest-language.md).",
      }),
    reward_hold_seconds: z.number().int().min(0).max(MAX_REWARD_HOLD_SECONDS).optional().openapi({
      description:
        'A completed reward is claimable only this long after its completion (a refund window, docs/reversals.md). Default 0; at most 90 days.',
    }),
    budget: z.number().min(0).max(1e12).nullish().openapi({
      description:
        "The most the chain's claims may add up to, in reward values (task rewards and the chain reward); a claim past it answers 409 budget_exhausted. Null or absent: no limit (docs/budgets.md).",
    }),
    max_claims_per_reward: z.number().int().min(1).max(1e9).nullish().openapi({
      description:
        'How many users may claim each reward of the chain; a claim past it answers 409 reward_cap_reached. Null or absent: no limit.',
    }),
    max_completions: z.number().int().min(1).max(1e9).nullish().openapi({
      description:
        'How many users may complete the chain: a user takes a place with their first completion in it; once every place is taken the chain admits no new users (cap_reached in GET active and explain). Null or absent: no limit (docs/budgets.md).',
    }),
    tasks: z.array(taskInputSchema).min(1).max(MAX_TASKS).openapi({ description: 'sequence_number exactly 1..n.' }),
    chain_reward: z
      .strictObject({
        type: storableString().min(1).max(100),
        name: name(),
        value: amount().nullish(),
        image_urls: imageUrls(),
        prizes: z.array(prizeInputSchema).min(1).max(MAX_PRIZES).optional().openapi({
          description:
            'A `mystery_box` only: its prize table, in the order draws walk it; prize_ids unique (docs/mystery-boxes.md).',
        }),
      })
      .nullish(),
  })
  .superRefine((chain, context) => {
    // A streak that cannot fit in one run of a repeating chain could never complete.
    if (!chain.recurrence) return;
    chain.tasks.forEach((task, index) => {
      const streak = task.condition_streak;
      if (!streak) return;
      const most = MOST_STREAK_PERIODS_IN_A_RUN[chain.recurrence!.every][streak.every];
      if (streak.periods > most) {
        context.addIssue({
          code: 'custom',
          path: ['tasks', index, 'condition_streak'],
          message: `a streak of ${streak.periods} ${streak.every}s cannot fit in one run of a chain that repeats every ${chain.recurrence!.every} (at most ${most})`,
        });
      }
    });
  })
  .openapi('CreateQuestChain', {
    example: {
      platform_id: '3f0c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
      advertiser_id: '7a1b2c3d-5e6f-4a8b-9c0d-1e2f3a4b5c6d',
      name: 'Get started',
      description: 'Three steps to your first trade.',
      logo_url: 'https://example.com/logo.png',
      start_date: '2026-01-01T00:00:00Z',
      end_date: '2026-07-01T00:00:00Z',
      tasks: [
        {
          sequence_number: 1,
          name: 'Verify your identity',
          condition_event_type: 'kyc',
          reward_type: 'points',
          reward_name: 'Welcome points',
          reward_value: 100,
        },
        {
          sequence_number: 2,
          name: 'First deposit of 50 EUR',
          description: 'Any deposit of at least 50 EUR.',
          condition_event_type: 'transaction',
          condition_min_amount: 50,
          condition_currency: 'EUR',
          reward_type: 'points',
          reward_name: 'Deposit bonus',
          reward_value: 250,
        },
      ],
      chain_reward: {
        type: 'mystery_box',
        name: 'Mystery box',
        value: 5,
        image_urls: ['https://example.com/box.png'],
        prizes: [
          { prize_id: 'gold', name: '50 EUR voucher', value: 50, weight: 1, stock: 20 },
          { prize_id: 'silver', name: '5 EUR voucher', value: 5, weight: 100 },
        ],
      },
    },
  });

export type CreateChainBody = z.infer<typeof createChainSchema>;

export const updateChainSchema = z
  .strictObject({ status: z.enum(CHAIN_STATUSES) })
  .openapi('UpdateQuestChain', { example: { status: 'paused' } });

export const chainIdParams = z.object({
  id: z.uuid().openapi({ param: { name: 'id', in: 'path' }, example: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70' }),
});

export const prizeParams = chainIdParams.extend({
  prize_id: storableString()
    .min(1)
    .max(100)
    .openapi({ param: { name: 'prize_id', in: 'path' }, example: 'gold' }),
});

export const restockSchema = z
  .strictObject({
    stock: z
      .number()
      .int()
      .min(0)
      .max(1e9)
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

export const chainDefinitionSchema = z
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
        id: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70',
        name: 'Get started',
        description: 'Three steps to your first trade.',
        logo_url: 'https://example.com/logo.png',
        background_image_url: null,
        start_date: '2026-01-01T00:00:00.000Z',
        end_date: '2026-07-01T00:00:00.000Z',
        status: 'active',
        platform_id: '3f0c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
        advertiser_id: '7a1b2c3d-5e6f-4a8b-9c0d-1e2f3a4b5c6d',
        allow_any_order: false,
        timezone: 'UTC',
        recurrence: null,
        reward_hold_seconds: 0,
        mode: 'live',
        budget: 5000,
        budget_spent: 350,
        max_claims_per_reward: null,
        max_completions: 1000,
        admitted_users: 12,
        created_at: '2026-01-01T09:00:00.000Z',
        updated_at: '2026-01-01T09:00:00.000Z',
      },
      tasks: [
        {
          id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
          sequence_number: 1,
          name: 'Verify your identity',
          description: null,
          condition_event_type: 'kyc',
          condition_min_amount: null,
          condition_currency: null,
          condition_after_timestamp: null,
          condition_before_timestamp: null,
          reward_type: 'points',
          reward_name: 'Welcome points',
          reward_value: 100,
          reward_image_urls: null,
          condition_min_count: 1,
          condition_min_total: null,
          condition_streak: null,
        },
        {
          id: 'b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e',
          sequence_number: 2,
          name: 'First deposit of 50 EUR',
          description: 'Any deposit of at least 50 EUR.',
          condition_event_type: 'transaction',
          condition_min_amount: 50,
          condition_currency: 'EUR',
          condition_after_timestamp: null,
          condition_before_timestamp: null,
          reward_type: 'points',
          reward_name: 'Deposit bonus',
          reward_value: 250,
          reward_image_urls: null,
          condition_min_count: 1,
          condition_min_total: null,
          condition_streak: null,
        },
      ],
      chain_reward: {
        id: 'd3e4f5a6-b7c8-4d9e-8f0a-2b3c4d5e6f7a',
        type: 'mystery_box',
        name: 'Mystery box',
        value: 5,
        image_urls: ['https://example.com/box.png'],
        draw_seed_hash: '9f2c0d6d1f7f0b7a3c6b1f1e0c4a2d8e5b7a9c3d1e2f4a6b8c0d2e4f6a8b0c2d',
        prizes: [
          { prize_id: 'gold', name: '50 EUR voucher', value: 50, weight: 1, odds: 0.0099, stock: 20 },
          { prize_id: 'silver', name: '5 EUR voucher', value: 5, weight: 100, odds: 0.9901, stock: null },
        ],
      },
    },
  });

export const chainResponseSchema = successEnvelope(chainDefinitionSchema);
export const chainListResponseSchema = successEnvelope(
  z.object({ quest_chains: z.array(chainDefinitionSchema), has_more: hasMoreField() }),
);

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
    mode: body.mode ?? 'live',
    allowAnyOrder: body.allow_any_order ?? false,
    timezone: body.timezone ?? 'UTC',
    recurrence: body.recurrence
      ? { every: body.recurrence.every, timezone: body.recurrence.timezone ?? body.timezone ?? 'UTC' }
      : null,
    rewardHoldSeconds: body.reward_hold_seconds ?? 0,
    budget: body.budget ?? null,
    maxClaimsPerReward: body.max_claims_per_reward ?? null,
    maxCompletions: body.max_completions ?? null,
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
      conditionMinCount: task.condition_min_count ?? 1,
      conditionMinTotal: task.condition_min_total ?? null,
      conditionStreak: task.condition_streak ?? null,
    })),
    reward: body.chain_reward
      ? {
          type: body.chain_reward.type,
          name: body.chain_reward.name,
          value: body.chain_reward.value ?? null,
          imageUrls: body.chain_reward.image_urls ?? null,
          prizes: body.chain_reward.prizes?.map((prize) => ({
            prizeId: prize.prize_id,
            name: prize.name,
            value: prize.value ?? null,
            weight: prize.weight,
            stock: prize.stock ?? null,
          })),
        }
      : null,
  };
}

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
