import { z } from '@hono/zod-openapi';
import type { CreateChainInput } from '../../../../core/quest-chains/create-chain.js';
import { CHAIN_STATUSES } from '../../../../shared/db/chain-store.js';
import { isKnownTimezone, TIMEZONE_RULE } from '../../../../shared/domain/calendar.js';
import {
  MAX_BUDGET,
  MAX_CAP,
  MAX_CURRENCY_LENGTH,
  MAX_DESCRIPTION_LENGTH,
  MAX_EVENT_TYPE_LENGTH,
  MAX_IMAGE_URLS,
  MAX_MIN_COUNT,
  MAX_MIN_TOTAL,
  MAX_NAME_LENGTH,
  MAX_PRIZE_ID_LENGTH,
  MAX_PRIZE_STOCK,
  MAX_PRIZE_WEIGHT,
  MAX_PRIZES,
  MAX_REWARD_HOLD_SECONDS,
  MAX_REWARD_TYPE_LENGTH,
  MAX_STREAK_PERIODS,
  MAX_TASKS,
  MAX_TIMEZONE_LENGTH,
  MAX_URL_LENGTH,
  MIN_STREAK_PERIODS,
  MIN_TASKS,
  RECURRENCE_UNITS,
  type RuleIssue,
  STREAK_UNITS,
  streakFitIssues,
  taskThresholdIssues,
} from '../../../../shared/domain/chain-definition-rules.js';
import { OFFSET_TIMESTAMP_RULE, parseOffsetTimestamp } from '../../../../shared/domain/chain-timestamp.js';
import { MODES } from '../../../../shared/domain/test-mode.js';
import { storableString } from '../../../../shared/validation/json-value.js';

// The body of POST /admin/v1/quest-chains, which a backtest and the CLI take
// too: its shape, with the limits of shared/domain/chain-definition-rules.ts
// as its published bounds. The rules of a task's thresholds and of streaks in
// runs are checked with the shape, where their messages join its own; the
// use-case checks the others (checkChainRules).

const name = () => storableString().trim().min(1).max(MAX_NAME_LENGTH);
const description = () => storableString().max(MAX_DESCRIPTION_LENGTH).nullish();
const httpUrl = () =>
  storableString()
    .max(MAX_URL_LENGTH)
    .pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }))
    .openapi({ type: 'string', format: 'uri', maxLength: MAX_URL_LENGTH });
const imageUrls = () => z.array(httpUrl()).max(MAX_IMAGE_URLS).nullish();
const amount = () => z.number().min(0);
export const offsetTimestamp = () =>
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
export const timezone = () => z.string().max(MAX_TIMEZONE_LENGTH).refine(isKnownTimezone, TIMEZONE_RULE);

/** Reports the rules a value breaks as issues of the shape, with the rules' paths and messages. */
function addRuleIssues(context: z.RefinementCtx, issues: readonly RuleIssue[]) {
  for (const issue of issues) context.addIssue({ code: 'custom', path: [...issue.path], message: issue.message });
}

const taskInputSchema = z
  .strictObject({
    sequence_number: z.number().int().min(1).max(MAX_TASKS),
    name: name(),
    description: description(),
    condition_event_type: storableString().min(1).max(MAX_EVENT_TYPE_LENGTH),
    condition_min_amount: amount().nullish(),
    condition_currency: storableString().min(1).max(MAX_CURRENCY_LENGTH).nullish(),
    condition_after_timestamp: offsetTimestamp().nullish().openapi({ description: 'Events at or after this instant count.' }),
    condition_before_timestamp: offsetTimestamp()
      .nullish()
      .openapi({ description: 'Events strictly before this instant count.' }),
    reward_type: storableString().min(1).max(MAX_REWARD_TYPE_LENGTH),
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
    condition_min_total: z.number().gt(0).max(MAX_MIN_TOTAL).nullish().openapi({
      description:
        "The sum of the counting events' amounts that completes the task; needs condition_currency (docs/quest-language.md).",
    }),
    condition_streak: z
      .strictObject({
        periods: z.number().int().min(MIN_STREAK_PERIODS).max(MAX_STREAK_PERIODS),
        every: z.enum(STREAK_UNITS),
      })
      .nullish()
      .openapi('StreakCondition', {
        description:
          "Consecutive periods (days, or weeks from Monday, in the chain's timezone) each holding a counting event (docs/quest-language.md).",
      }),
  })
  .superRefine((task, context) =>
    addRuleIssues(
      context,
      taskThresholdIssues({ conditionMinTotal: task.condition_min_total, conditionCurrency: task.condition_currency }),
    ),
  )
  .openapi('QuestTaskInput');

const prizeInputSchema = z
  .strictObject({
    prize_id: storableString().trim().min(1).max(MAX_PRIZE_ID_LENGTH),
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
      .max(MAX_PRIZE_STOCK)
      .nullish()
      .openapi({ description: 'How many may be drawn; null or absent: unlimited.' }),
  })
  .openapi('PrizeInput');

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
    timezone: timezone().optional().openapi({
      description: 'The IANA time zone in which streak periods are counted (docs/quest-language.md). Default UTC.',
      example: 'Europe/Berlin',
    }),
    recurrence: z
      .strictObject({
        every: z.enum(RECURRENCE_UNITS),
        timezone: timezone().optional(),
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
    budget: z.number().min(0).max(MAX_BUDGET).nullish().openapi({
      description:
        "The most the chain's claims may add up to, in reward values (task rewards and the chain reward); a claim past it answers 409 budget_exhausted. Null or absent: no limit (docs/budgets.md).",
    }),
    max_claims_per_reward: z.number().int().min(1).max(MAX_CAP).nullish().openapi({
      description:
        'How many users may claim each reward of the chain; a claim past it answers 409 reward_cap_reached. Null or absent: no limit.',
    }),
    max_completions: z.number().int().min(1).max(MAX_CAP).nullish().openapi({
      description:
        'How many users may complete the chain: a user takes a place with their first completion in it; once every place is taken the chain admits no new users (cap_reached in GET active and explain). Null or absent: no limit (docs/budgets.md).',
    }),
    auto_claim: z.boolean().optional().openapi({
      description:
        "Default false. True: the service claims each of the chain's rewards when it is earned (a task's at its completion, the chain reward at the chain's), keeping every claim rule: reward hold, caps, budget, a mystery box's draw (docs/points.md).",
    }),
    tasks: z.array(taskInputSchema).min(MIN_TASKS).max(MAX_TASKS).openapi({ description: 'sequence_number exactly 1..n.' }),
    chain_reward: z
      .strictObject({
        type: storableString().min(1).max(MAX_REWARD_TYPE_LENGTH),
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
  .superRefine((chain, context) =>
    addRuleIssues(
      context,
      streakFitIssues({
        recurrence: chain.recurrence,
        tasks: chain.tasks.map((task) => ({ conditionStreak: task.condition_streak })),
      }),
    ),
  )
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
    autoClaim: body.auto_claim ?? false,
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
