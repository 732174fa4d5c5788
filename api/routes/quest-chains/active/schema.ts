import { z } from '@hono/zod-openapi';
import type { ActiveChainProgress, ActiveChains, ClaimableTask } from '../../../../core/quest-chains/read-active-chains.js';
import type { ChainReward } from '../../../../shared/db/chain-store.js';
import { type TaskProgress, taskProgressWire } from '../../../../shared/domain/chain-view.js';
import { inStock } from '../../../../shared/domain/draw-stock.js';
import { formatIsoMillis } from '../../../../shared/domain/timestamp.js';
import { successEnvelope } from '../../../http/envelope.js';
import {
  chainRewardShape,
  claimableTaskSchema,
  EXAMPLE_CHAIN,
  EXAMPLE_CHAIN_REWARD,
  EXAMPLE_PRIZES,
  EXAMPLE_TASKS,
  isoMillis,
  isoMillisOrNull,
  prizeShape,
  questChainShape,
  taskShape,
  toChainRewardResponse,
  toPrizesResponse,
  toQuestChainResponse,
  toTaskResponse,
} from '../../shared-shapes.js';

// GET /v1/quest-chains/active/{platformUserId}: the user's active chains with their progress.

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
          quest_chain: EXAMPLE_CHAIN,
          tasks: [
            { ...EXAMPLE_TASKS[0], user_status: 'completed', progress: null },
            { ...EXAMPLE_TASKS[1], user_status: 'available', progress: null },
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
            ...EXAMPLE_CHAIN_REWARD,
            prizes: EXAMPLE_PRIZES.map((prize) => ({ ...prize, in_stock: true })),
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

const taskProgressOrNull = (progress: TaskProgress | undefined) => (progress === undefined ? null : taskProgressWire(progress));

// A chain's answer in two kinds of parts: what its definition fixes (the same for every user: active-json.ts keeps
// it as text) and what the user's progress decides. Both renderers put them together in the same order.

/** What the user's progress decides of a task, after the task's own fields. */
export const toTaskStandingResponse = (taskId: string, { taskStatuses, taskProgress }: ActiveChainProgress) => ({
  user_status: taskStatuses.get(taskId)!,
  progress: taskProgressOrNull(taskProgress.get(taskId)),
});

export const toUserProgressResponse = ({ progress, capReached, run }: ActiveChainProgress) => ({
  status: progress.status,
  progress: progress.progress,
  joined_at: formatIsoMillis(progress.joinedUs),
  completed_at: isoMillisOrNull(progress.completedUs),
  completed_tasks: progress.completedTasks,
  total_tasks: progress.totalTasks,
  cap_reached: capReached,
  period_start: isoMillisOrNull(run?.startUs ?? null),
  period_end: isoMillisOrNull(run?.endUs ?? null),
});

/** The chain reward as its definition fixes it, with its prize table. */
export const toFixedRewardResponse = (reward: ChainReward) => ({
  ...toChainRewardResponse(reward),
  prizes: toPrizesResponse(reward.prizes, (prize) => ({ in_stock: inStock(prize) })),
});

/** What the user's progress decides of the chain reward, after its fixed fields. */
export const toRewardStandingResponse = ({ rewardClaimable, rewardClaimableUs, claimableRuns }: ActiveChainProgress) => ({
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
});

function toActiveChainResponse(standing: ActiveChainProgress) {
  const { chain, tasks, reward } = standing.definition;
  return {
    quest_chain: toQuestChainResponse(chain),
    tasks: tasks.map((task) => ({ ...toTaskResponse(task), ...toTaskStandingResponse(task.id, standing) })),
    user_progress: toUserProgressResponse(standing),
    chain_reward: reward ? { ...toFixedRewardResponse(reward), ...toRewardStandingResponse(standing) } : null,
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
