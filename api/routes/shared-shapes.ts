import { z } from '@hono/zod-openapi';
import type { ChainReward, ChainRow, PrizeRow, TaskRow } from '../../shared/db/chain-store.js';
import type { Leaderboard } from '../../shared/db/leaderboard-store.js';
import { RECURRENCE_UNITS, STREAK_UNITS } from '../../shared/domain/chain-definition-rules.js';
import { OFFSET_TIMESTAMP_RULE, parseOffsetTimestamp } from '../../shared/domain/chain-timestamp.js';
import { prizeOdds } from '../../shared/domain/draw.js';
import { inStock } from '../../shared/domain/draw-stock.js';
import { LEADERBOARD_METRICS, LEADERBOARD_STATUSES } from '../../shared/domain/leaderboards.js';
import { shownProviderId } from '../../shared/domain/test-mode.js';
import { formatIsoMillis } from '../../shared/domain/timestamp.js';
import { storableString } from '../../shared/validation/json-value.js';

// The wire shapes that more than one route group publishes: timestamps, the
// platform user path segment, and a chain's definition (chain, task, reward,
// prize, claimable task) as the admin answers, the active read and the
// rewards list show it. A route group's own shapes sit in its folder.

/** Every timestamp the API answers with: ISO 8601 UTC with milliseconds. */
export const isoMillis = () =>
  z.string().openapi({ example: '2026-01-02T03:04:05.678Z', description: 'ISO 8601 UTC with milliseconds.' });

export const isoMillisOrNull = (us: bigint | null) => (us === null ? null : formatIsoMillis(us));

/** The `{platformUserId}` path segment of the per-user platform routes (the published 1–255 characters). */
export const platformUserIdParams = z.object({
  platformUserId: storableString()
    .min(1)
    .max(255)
    .openapi({ param: { name: 'platformUserId', in: 'path' }, example: 'user-123' }),
});

// Field shapes of a chain's definition, for the read (with the user's fields)
// and the admin answers (without them). Built as separate objects from plain
// shapes so each OpenAPI component stays its own.

export const questChainShape = {
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  logo_url: z.string().nullable(),
  background_image_url: z.string().nullable(),
  start_date: isoMillis(),
  end_date: isoMillis(),
  status: z.enum(['draft', 'active', 'paused', 'ended']),
  platform_id: z.uuid(),
  advertiser_id: z.uuid(),
  allow_any_order: z.boolean().openapi({
    description:
      'false: one task at a time in sequence order; true: an event counts toward the lowest-numbered open task it matches.',
  }),
  timezone: z
    .string()
    .openapi({ description: 'The IANA time zone in which streak periods are counted (docs/quest-language.md).', example: 'UTC' }),
  recurrence: z
    .object({ every: z.enum(RECURRENCE_UNITS), timezone: z.string() })
    .nullable()
    .openapi('Recurrence', {
      description:
        'A repeating chain: each calendar day, week (from Monday) or month, in `timezone`, is a run of its own (docs/quest-language.md); null: one run.',
    }),
};

export const taskShape = {
  id: z.uuid(),
  sequence_number: z.number().int(),
  name: z.string(),
  description: z.string().nullable(),
  condition_event_type: z.string(),
  condition_min_amount: z.number().nullable(),
  condition_currency: z.string().nullable(),
  condition_after_timestamp: isoMillis().nullable().openapi({ description: 'Inclusive lower bound on the event timestamp.' }),
  condition_before_timestamp: isoMillis().nullable().openapi({ description: 'Exclusive upper bound on the event timestamp.' }),
  reward_type: z.string(),
  reward_name: z.string(),
  reward_value: z.number(),
  reward_image_urls: z.array(z.string()).nullable(),
  condition_min_count: z.number().int().openapi({
    description: 'How many counting events complete the task; 1 for a task one event completes (docs/quest-language.md).',
  }),
  condition_min_total: z.number().nullable().openapi({
    description: "The sum of the counting events' amounts (in condition_currency) that completes the task; null: none.",
  }),
  condition_streak: z
    .object({ periods: z.number().int(), every: z.enum(STREAK_UNITS) })
    .nullable()
    .openapi({ description: "Consecutive periods (in the chain's timezone) each holding a counting event; null: none." }),
};

export const chainRewardShape = {
  id: z.uuid(),
  type: z.string().openapi({ example: 'mystery_box' }),
  name: z.string(),
  value: z.number().nullable(),
  image_urls: z.array(z.string()).nullable(),
  draw_seed_hash: z.string().nullable().openapi({
    description:
      'A mystery box with prizes: SHA-256 (hex) of the seed its draws use now, published before any draw uses it; null for any other reward (docs/mystery-boxes.md).',
  }),
};

/** A prize as everyone sees it: the published odds (weight over the total weight in stock; 0 when out of stock). */
export const prizeShape = {
  prize_id: z.string(),
  name: z.string(),
  value: z.number().nullable(),
  weight: z.number().int(),
  odds: z
    .number()
    .openapi({ description: 'weight / the total weight of the prizes in stock; 0 while this one is out of stock.' }),
};

export const claimableTaskSchema = z
  .object({
    task_id: z.uuid(),
    quest_chain_id: z.uuid(),
    sequence_number: z.number().int(),
    reward_type: z.string(),
    reward_name: z.string(),
    reward_value: z.number(),
    reward_image_urls: z.array(z.string()).nullable(),
    completed_at: isoMillis(),
    claimable_at: isoMillis().openapi({
      description:
        "From when a claim is accepted: completed_at plus the chain's reward_hold_seconds (a claim before answers 409 reward_on_hold).",
    }),
    period_start: isoMillis().nullable().openapi({
      description:
        'A repeating chain: the run it was completed in (claim it with this period_start); null for a chain that does not repeat.',
    }),
    period_end: isoMillis().nullable(),
  })
  .openapi('ClaimableTask');

// Wire shapers: the published field names of a chain's definition.

export function toQuestChainResponse(chain: ChainRow) {
  return {
    id: chain.id,
    name: chain.name,
    description: chain.description,
    logo_url: chain.logoUrl,
    background_image_url: chain.backgroundImageUrl,
    start_date: formatIsoMillis(chain.startDate),
    end_date: formatIsoMillis(chain.endDate),
    status: chain.status,
    // A test chain is stored with the test twins' ids; everyone is shown the ids they know (docs/test-mode.md).
    platform_id: shownProviderId(chain.platformId, chain.mode),
    advertiser_id: shownProviderId(chain.advertiserId, chain.mode),
    allow_any_order: chain.allowAnyOrder,
    timezone: chain.timezone,
    recurrence: chain.recurrence,
  };
}

export function toTaskResponse(task: TaskRow) {
  return {
    id: task.id,
    sequence_number: task.sequenceNumber,
    name: task.name,
    description: task.description,
    condition_event_type: task.conditionEventType,
    condition_min_amount: task.conditionMinAmount,
    condition_currency: task.conditionCurrency,
    condition_after_timestamp: isoMillisOrNull(task.conditionAfterTimestamp),
    condition_before_timestamp: isoMillisOrNull(task.conditionBeforeTimestamp),
    reward_type: task.rewardType,
    reward_name: task.rewardName,
    reward_value: task.rewardValue,
    reward_image_urls: task.rewardImageUrls ?? null,
    condition_min_count: task.conditionMinCount,
    condition_min_total: task.conditionMinTotal,
    condition_streak: task.conditionStreak,
  };
}

export function toChainRewardResponse(reward: ChainReward) {
  return {
    id: reward.id,
    type: reward.type,
    name: reward.name,
    value: reward.value,
    image_urls: reward.imageUrls ?? null,
    draw_seed_hash: reward.drawSeedHash,
  };
}

/** The prize table with each prize's published odds, `extra` adding what the audience may see of its stock. */
export function toPrizesResponse<T>(prizes: readonly PrizeRow[], extra: (prize: PrizeRow) => T) {
  const odds = prizeOdds(prizes.map((prize) => ({ weight: prize.weight, inStock: inStock(prize) })));
  return prizes.map((prize, index) => ({
    prize_id: prize.prizeId,
    name: prize.name,
    value: prize.value,
    weight: prize.weight,
    odds: odds[index]!,
    ...extra(prize),
  }));
}

// One example chain for every answer that shows it (the admin answers, the active read).

export const EXAMPLE_CHAIN = {
  id: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70',
  name: 'Get started',
  description: 'Three steps to your first trade.',
  logo_url: 'https://example.com/logo.png',
  background_image_url: null,
  start_date: '2026-01-01T00:00:00.000Z',
  end_date: '2026-07-01T00:00:00.000Z',
  status: 'active' as const,
  platform_id: '3f0c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
  advertiser_id: '7a1b2c3d-5e6f-4a8b-9c0d-1e2f3a4b5c6d',
  allow_any_order: false,
  timezone: 'UTC',
  recurrence: null,
};

export const EXAMPLE_TASKS = [
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
] as const;

export const EXAMPLE_CHAIN_REWARD = {
  id: 'd3e4f5a6-b7c8-4d9e-8f0a-2b3c4d5e6f7a',
  type: 'mystery_box',
  name: 'Mystery box',
  value: 5,
  image_urls: ['https://example.com/box.png'],
  draw_seed_hash: '9f2c0d6d1f7f0b7a3c6b1f1e0c4a2d8e5b7a9c3d1e2f4a6b8c0d2e4f6a8b0c2d',
};

export const EXAMPLE_PRIZES = [
  { prize_id: 'gold', name: '50 EUR voucher', value: 50, weight: 1, odds: 0.0099 },
  { prize_id: 'silver', name: '5 EUR voucher', value: 5, weight: 100, odds: 0.9901 },
] as const;

// A leaderboard (§19), as the platform's reads and the admin answers show it.

export const leaderboardShape = {
  id: z.uuid(),
  name: z.string(),
  metric: z.enum(LEADERBOARD_METRICS).openapi({
    description:
      '`points`: points credited in the period less their reversals (spends do not lower it); `chains_completed`: chains completed in the period.',
  }),
  start_date: isoMillis(),
  end_date: isoMillis().nullable().openapi({ description: 'Null: the board runs on.' }),
  recurrence: z
    .object({ every: z.enum(RECURRENCE_UNITS), timezone: z.string() })
    .nullable()
    .openapi('LeaderboardRecurrence', {
      description:
        'A repeating board: each calendar day, week (from Monday) or month, in `timezone`, is a period of its own that starts from zero; null: one period.',
    }),
  size: z.number().int().openapi({ description: 'Ranked entries a finished period keeps (its final standings).' }),
  status: z.enum(LEADERBOARD_STATUSES),
  created_at: isoMillis(),
};

export const EXAMPLE_LEADERBOARD = {
  id: '0b9e4c1a-2f3d-4e5b-8c6d-7e8f9a0b1c2d',
  name: 'Top traders of the week',
  metric: 'points' as const,
  start_date: '2026-01-05T00:00:00.000Z',
  end_date: null,
  recurrence: { every: 'week' as const, timezone: 'Europe/Berlin' },
  size: 1000,
  status: 'active' as const,
  created_at: '2026-01-02T03:04:05.678Z',
};

export function toLeaderboardResponse(board: Leaderboard) {
  return {
    id: board.id,
    name: board.name,
    metric: board.metric,
    start_date: formatIsoMillis(board.startUs),
    end_date: isoMillisOrNull(board.endUs),
    recurrence: board.recurrence,
    size: board.size,
    status: board.status,
    created_at: formatIsoMillis(board.createdUs),
  };
}

/** The optional `period_start` query parameter of a read that names a run or period by its start. */
export const periodStartQueryParam = (description: string) =>
  z
    .string()
    .refine((value) => parseOffsetTimestamp(value) !== null, OFFSET_TIMESTAMP_RULE)
    .optional()
    .openapi({ param: { name: 'period_start', in: 'query' }, format: 'date-time', description });
