import { z } from '@hono/zod-openapi';
import type { Explanation } from '../../../core/quest-chains/explain-progress.js';
import type { ActiveChainProgress, ActiveChains, ClaimableTask } from '../../../core/quest-chains/read-active-chains.js';
import type { ChainReward, ChainRow, PrizeRow, TaskRow } from '../../../shared/db/chain-store.js';
import { OFFSET_TIMESTAMP_RULE, parseOffsetTimestamp } from '../../../shared/domain/chain-timestamp.js';
import { type TaskProgress, taskProgressWire } from '../../../shared/domain/chain-view.js';
import { prizeOdds } from '../../../shared/domain/draw.js';
import { inStock } from '../../../shared/domain/draw-stock.js';
import type { Verdict } from '../../../shared/domain/explain.js';
import { fromMicros } from '../../../shared/domain/tally.js';
import { shownProviderId } from '../../../shared/domain/test-mode.js';
import { formatIsoMillis } from '../../../shared/domain/timestamp.js';
import { isoMillis, platformUserIdParams } from '../../http/common-schemas.js';
import { successEnvelope } from '../../http/envelope.js';

// Field shapes shared by the read (with the user's fields) and the admin
// answers (without them). Built as separate objects from plain shapes so
// each OpenAPI component stays its own.

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
    .object({ every: z.enum(['day', 'week', 'month']), timezone: z.string() })
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
    .object({ periods: z.number().int(), every: z.enum(['day', 'week']) })
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

const activePrizeSchema = z.object({ ...prizeShape, in_stock: z.boolean() }).openapi('Prize');

const activeChainSchema = z.object(questChainShape).openapi('QuestChain');

const taskProgressSchema = z
  .object({
    count: z.number().int().openapi({ description: 'Events counted toward the task so far.' }),
    count_required: z.number().int(),
    total: z
      .number()
      .nullable()
      .openapi({ description: "Sum of the counted events' amounts; null when the task sets no total." }),
    total_required: z.number().nullable(),
    streak: z.number().int().nullable().openapi({
      description:
        'Consecutive periods with a counted event, up to the current one (0 once a period passed without one); null when the task sets no streak.',
    }),
    streak_required: z.number().int().nullable(),
  })
  .openapi('TaskProgress');

const activeTaskSchema = z
  .object({
    ...taskShape,
    user_status: z.enum(['completed', 'available', 'locked']),
    progress: taskProgressSchema.nullable().openapi({
      description:
        'For a counted, summed or streak task: what the user has gathered toward it (docs/quest-language.md); null for a task one event completes.',
    }),
  })
  .openapi('QuestTask');

const activeChainRewardSchema = z
  .object({
    ...chainRewardShape,
    prizes: z
      .array(activePrizeSchema)
      .openapi({ description: "A mystery box's prize table with its odds; empty for any other reward." }),
    claimable: z.boolean().openapi({ description: 'Chain completed and its reward not yet claimed.' }),
    claimable_at: isoMillis().nullable().openapi({
      description:
        "While claimable: from when a claim is accepted (the chain's completion plus its reward_hold_seconds; a repeating chain: the earliest of its claimable runs'); null otherwise.",
    }),
    claimable_periods: z
      .array(
        z.object({
          period_start: isoMillis(),
          period_end: isoMillis(),
          completed_at: isoMillis(),
          claimable_at: isoMillis(),
        }),
      )
      .openapi({
        description:
          'A repeating chain: each run (earlier ones included) completed and its chain reward not yet claimed; claim one with its period_start. Empty for a chain that does not repeat.',
      }),
  })
  .openapi('ChainReward');

const userProgressSchema = z
  .object({
    status: z.enum(['not_started', 'in_progress', 'completed']),
    progress: z
      .number()
      .int()
      .min(0)
      .max(100)
      .openapi({ description: 'floor(100 × completed_tasks / total_tasks).', example: 33 }),
    joined_at: isoMillis().openapi({ description: "The later of the user's registration and the chain's start_date." }),
    completed_at: isoMillis()
      .nullable()
      .openapi({ description: 'Latest task completion once every task is completed; null before.' }),
    completed_tasks: z.number().int(),
    total_tasks: z.number().int(),
    cap_reached: z.boolean().openapi({
      description:
        "The chain's max_completions places are all taken and this user holds none: their events no longer count in it (docs/budgets.md). False for every chain without a cap.",
    }),
    period_start: isoMillis().nullable().openapi({
      description:
        'A repeating chain: the start of the current run, the one this progress is of (docs/quest-language.md); null for a chain that does not repeat.',
    }),
    period_end: isoMillis()
      .nullable()
      .openapi({ description: 'A repeating chain: the end of the current run (exclusive); null otherwise.' }),
  })
  .openapi('UserProgress');

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

export const activeChainsSchema = z
  .object({
    liveUpdates: z.object({
      token: z.string().openapi({
        description: 'Signed, valid 1 hour, scoped to this platform user; safe to hand to a browser for GET /v1/live.',
      }),
      baselineTimestamp: isoMillis().nullable().openapi({
        description: "Server time of the user's latest progress change (null if never); pass as `since` to GET /v1/live.",
      }),
    }),
    quest_chains: z.array(
      z.object({
        quest_chain: activeChainSchema,
        tasks: z.array(activeTaskSchema),
        user_progress: userProgressSchema,
        chain_reward: activeChainRewardSchema.nullable(),
      }),
    ),
    claimable_tasks: z.array(claimableTaskSchema),
    user: z.object({ exists: z.boolean() }),
  })
  .openapi('ActiveQuestChains', {
    example: {
      liveUpdates: {
        token:
          'eyJwIjoiM2YwYzFkMmUtNGI1YS00YzZkLThlN2YtOWEwYjFjMmQzZTRmIiwidSI6InVzZXItMTIzIiwiZXhwIjoxNzY3MzI2NjQ1Njc4fQ.d-tA3mfXcUEWB4Ab-e07Kuu2s_SmoYPGO2LC5trqvZc',
        baselineTimestamp: '2026-01-02T03:02:01.234Z',
      },
      quest_chains: [
        {
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
              user_status: 'completed',
              progress: null,
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
              user_status: 'available',
              progress: null,
            },
          ],
          user_progress: {
            status: 'in_progress',
            progress: 50,
            joined_at: '2026-01-02T03:00:00.000Z',
            completed_at: null,
            completed_tasks: 1,
            total_tasks: 2,
            cap_reached: false,
            period_start: null,
            period_end: null,
          },
          chain_reward: {
            id: 'd3e4f5a6-b7c8-4d9e-8f0a-2b3c4d5e6f7a',
            type: 'mystery_box',
            name: 'Mystery box',
            value: 5,
            image_urls: ['https://example.com/box.png'],
            draw_seed_hash: '9f2c0d6d1f7f0b7a3c6b1f1e0c4a2d8e5b7a9c3d1e2f4a6b8c0d2e4f6a8b0c2d',
            prizes: [
              { prize_id: 'gold', name: '50 EUR voucher', value: 50, weight: 1, odds: 0.0099, in_stock: true },
              { prize_id: 'silver', name: '5 EUR voucher', value: 5, weight: 100, odds: 0.9901, in_stock: true },
            ],
            claimable: false,
            claimable_at: null,
            claimable_periods: [],
          },
        },
      ],
      claimable_tasks: [
        {
          task_id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
          quest_chain_id: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70',
          sequence_number: 1,
          reward_type: 'points',
          reward_name: 'Welcome points',
          reward_value: 100,
          reward_image_urls: null,
          completed_at: '2026-01-02T03:02:00.500Z',
          claimable_at: '2026-01-02T03:02:00.500Z',
          period_start: null,
          period_end: null,
        },
      ],
      user: { exists: true },
    },
  });

export const activeChainsResponseSchema = successEnvelope(activeChainsSchema);

// Wire shapers: the published field names of a chain definition, shared by the
// admin answers and the active-chains read (which adds the user's fields).

const isoMillisOrNull = (us: bigint | null) => (us === null ? null : formatIsoMillis(us));

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

const taskProgressOrNull = (progress: TaskProgress | undefined) => (progress === undefined ? null : taskProgressWire(progress));

function toActiveChainResponse({
  definition,
  taskStatuses,
  taskProgress,
  progress,
  rewardClaimable,
  rewardClaimableUs,
  capReached,
  run,
  claimableRuns,
}: ActiveChainProgress) {
  const { chain, tasks, reward } = definition;
  return {
    quest_chain: toQuestChainResponse(chain),
    tasks: tasks.map((task) => ({
      ...toTaskResponse(task),
      user_status: taskStatuses.get(task.id)!,
      progress: taskProgressOrNull(taskProgress.get(task.id)),
    })),
    user_progress: {
      status: progress.status,
      progress: progress.progress,
      joined_at: formatIsoMillis(progress.joinedUs),
      completed_at: isoMillisOrNull(progress.completedUs),
      completed_tasks: progress.completedTasks,
      total_tasks: progress.totalTasks,
      cap_reached: capReached,
      period_start: isoMillisOrNull(run?.startUs ?? null),
      period_end: isoMillisOrNull(run?.endUs ?? null),
    },
    chain_reward: reward
      ? {
          ...toChainRewardResponse(reward),
          prizes: toPrizesResponse(reward.prizes, (prize) => ({ in_stock: inStock(prize) })),
          claimable: rewardClaimable,
          claimable_at: isoMillisOrNull(rewardClaimableUs),
          // Runs of a repeating chain only (a chain that does not repeat lists none).
          claimable_periods: claimableRuns.flatMap(({ run, completedUs, claimableUs }) =>
            run === null
              ? []
              : [
                  {
                    period_start: formatIsoMillis(run.startUs),
                    period_end: formatIsoMillis(run.endUs),
                    completed_at: formatIsoMillis(completedUs),
                    claimable_at: formatIsoMillis(claimableUs),
                  },
                ],
          ),
        }
      : null,
  };
}

export function toClaimableTaskResponse({ chainId, task, completedUs, claimableUs, run }: ClaimableTask) {
  return {
    task_id: task.id,
    quest_chain_id: chainId,
    sequence_number: task.sequenceNumber,
    reward_type: task.rewardType,
    reward_name: task.rewardName,
    reward_value: task.rewardValue,
    reward_image_urls: task.rewardImageUrls ?? null,
    completed_at: formatIsoMillis(completedUs),
    claimable_at: formatIsoMillis(claimableUs),
    period_start: isoMillisOrNull(run?.startUs ?? null),
    period_end: isoMillisOrNull(run?.endUs ?? null),
  };
}

/** The `data` of GET active. */
export function toActiveChainsResponse(answer: ActiveChains): z.infer<typeof activeChainsSchema> {
  return {
    liveUpdates: { token: answer.liveToken, baselineTimestamp: isoMillisOrNull(answer.baselineUs) },
    quest_chains: answer.chains.map(toActiveChainResponse),
    claimable_tasks: answer.claimableTasks.map(toClaimableTaskResponse),
    user: { exists: answer.userId !== null },
  };
}

// Explain (§11): why each task of a chain is or is not completed for a user.

export const explainParams = z.object({
  questChainId: z
    .uuid()
    .openapi({ param: { name: 'questChainId', in: 'path' }, example: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70' }),
  platformUserId: platformUserIdParams.shape.platformUserId,
});

export const explainQuery = z.object({
  period_start: z
    .string()
    .refine((value) => parseOffsetTimestamp(value) !== null, OFFSET_TIMESTAMP_RULE)
    .optional()
    .openapi({
      param: { name: 'period_start', in: 'query' },
      format: 'date-time',
      description:
        'A repeating chain: the run to explain, as its period_start; absent: the current run. Refused for a chain that does not repeat (docs/quest-language.md).',
    }),
});

const VERDICTS = [
  'outside_chain_window',
  'before_task_window',
  'after_task_window',
  'amount_below_minimum',
  'amount_missing',
  'currency_mismatch',
  'waiting_for_earlier_task',
  'used_by_other_task',
  'after_completion',
  'not_yet_processed',
  'reversed',
  'cap_reached',
  'counted',
  'streak_broken',
  'outside_period',
] as const satisfies readonly Verdict[];

const eventSource = () =>
  z
    .enum(['platform', 'advertiser'])
    .openapi({ description: "Sent by the chain's platform, or by its advertiser about the id linked to the user." });

const explainCandidateSchema = z
  .object({
    event_id: z.uuid(),
    timestamp: isoMillis(),
    source: eventSource(),
    amount: z.number().nullable(),
    currency: z.string().nullable(),
    verdict: z.enum(VERDICTS).openapi({
      description:
        "Why this event did not complete the task (product rules §11). `counted`: it counted toward this task, which needs more (docs/quest-language.md); `streak_broken`: it counted, and a streak task's run started again from it after a period without one; `outside_period`: a repeating chain's event of another run than the one explained.",
    }),
    progress: z
      .object({ count: z.number().int(), total: z.number(), streak: z.number().int() })
      .nullable()
      .openapi({ description: "With `counted` and `streak_broken`: the task's running tally with this event; null otherwise." }),
  })
  .openapi('ExplainCandidate');

export const explanationSchema = z
  .object({
    quest_chain_id: z.uuid(),
    user: z.object({ exists: z.boolean() }),
    cap_reached: z.boolean().openapi({
      description:
        "The chain's max_completions places are all taken and the user holds none: none of their events counts in it (verdict cap_reached).",
    }),
    pending_events: z
      .number()
      .int()
      .openapi({ description: "The user's stored events (any type) the matcher has not processed yet: they may still count." }),
    period_start: isoMillis()
      .nullable()
      .openapi({ description: 'A repeating chain: the start of the run explained; null for a chain that does not repeat.' }),
    period_end: isoMillis()
      .nullable()
      .openapi({ description: 'A repeating chain: the end of the run explained (exclusive); null otherwise.' }),
    tasks: z.array(
      z
        .object({
          task_id: z.uuid(),
          sequence_number: z.number().int(),
          user_status: z.enum(['completed', 'available', 'locked']),
          completed_by: z
            .object({ event_id: z.uuid(), event_type: z.string(), timestamp: isoMillis(), source: eventSource() })
            .nullable(),
          candidates: z.array(explainCandidateSchema).openapi({
            description: "Up to 10 of the user's events of the task's type, latest first, without the completing one.",
          }),
        })
        .openapi('ExplainTask'),
    ),
  })
  .openapi('QuestChainExplanation', {
    example: {
      quest_chain_id: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70',
      user: { exists: true },
      cap_reached: false,
      pending_events: 0,
      period_start: null,
      period_end: null,
      tasks: [
        {
          task_id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
          sequence_number: 1,
          user_status: 'completed',
          completed_by: {
            event_id: '0d9f8e7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f',
            event_type: 'kyc',
            timestamp: '2026-01-02T03:00:00.000Z',
            source: 'platform',
          },
          candidates: [],
        },
        {
          task_id: 'b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e',
          sequence_number: 2,
          user_status: 'available',
          completed_by: null,
          candidates: [
            {
              event_id: '5e4d3c2b-1a09-4f8e-8d7c-6b5a4f3e2d1c',
              timestamp: '2026-01-03T10:00:00.000Z',
              source: 'advertiser',
              amount: 20,
              currency: 'EUR',
              verdict: 'amount_below_minimum',
              progress: null,
            },
            {
              event_id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
              timestamp: '2026-01-01T12:00:00.000Z',
              source: 'platform',
              amount: 80,
              currency: 'EUR',
              verdict: 'waiting_for_earlier_task',
              progress: null,
            },
          ],
        },
      ],
    },
  });

export const explanationResponseSchema = successEnvelope(explanationSchema);

export function toExplanationResponse(explanation: Explanation) {
  return {
    quest_chain_id: explanation.definition.chain.id,
    user: { exists: explanation.userExists },
    cap_reached: explanation.capReached,
    pending_events: explanation.pendingEvents,
    period_start: isoMillisOrNull(explanation.run?.startUs ?? null),
    period_end: isoMillisOrNull(explanation.run?.endUs ?? null),
    tasks: explanation.tasks.map(({ task, userStatus, completedBy, candidates }) => ({
      task_id: task.id,
      sequence_number: task.sequenceNumber,
      user_status: userStatus,
      completed_by:
        completedBy === null
          ? null
          : {
              event_id: completedBy.event.id,
              event_type: completedBy.event.eventType,
              timestamp: formatIsoMillis(completedBy.event.occurredUs),
              source: completedBy.source,
            },
      candidates: candidates.map(({ event, source, verdict, tally }) => ({
        event_id: event.id,
        timestamp: formatIsoMillis(event.occurredUs),
        source,
        amount: event.amount,
        currency: event.currency,
        verdict,
        progress: tally === undefined ? null : { count: tally.count, total: fromMicros(tally.totalMicros), streak: tally.run },
      })),
    })),
  };
}
