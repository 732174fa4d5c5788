import { z } from '@hono/zod-openapi';
import type { ChainStats } from '../../../../core/quest-chains/read-chain-stats.js';
import { CHAIN_STATUSES } from '../../../../shared/db/chain-store.js';
import { MODES, shownProviderId } from '../../../../shared/domain/test-mode.js';
import { formatIsoMillis } from '../../../../shared/domain/timestamp.js';
import { successEnvelope } from '../../../http/envelope.js';

// One answer for the operator's read (/admin/v1/quest-chains/{id}/stats) and the advertiser's (/v1/quest-chains/{id}/stats).

export const statsParams = z.object({
  questChainId: z
    .uuid()
    .openapi({ param: { name: 'questChainId', in: 'path' }, example: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70' }),
});

const STATS_EXAMPLE = {
  quest_chain: {
    id: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70',
    name: 'Welcome chain',
    status: 'active' as const,
    mode: 'live' as const,
    start_date: '2026-03-01T00:00:00.000Z',
    end_date: '2026-03-31T00:00:00.000Z',
    timezone: 'UTC',
    advertiser_id: '7a1b2c3d-5e6f-4a8b-9c0d-1e2f3a4b5c6d',
    platform_id: '3f0c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
  },
  users: { admitted: 1200, started: 1200, completed: 310 },
  tasks: [
    {
      task_id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
      sequence_number: 1,
      name: 'Register',
      completed_users: 1200,
      median_seconds_to_complete: 95,
    },
    {
      task_id: 'b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e',
      sequence_number: 2,
      name: 'First deposit',
      completed_users: 310,
      median_seconds_to_complete: 172800,
    },
  ],
  rewards: [
    { task_id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', name: '10 points', type: 'points', claims: 1100, value_claimed: 11000 },
    { task_id: 'b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e', name: '20 points', type: 'points', claims: 300, value_claimed: 6000 },
    { task_id: null, name: 'Mystery box', type: 'mystery_box', claims: 290, value_claimed: 3400 },
  ],
  prizes: [
    { prize_id: 'small', name: 'Small prize', value: 5, drawn: 280, stock_left: 720 },
    { prize_id: 'jackpot', name: 'Jackpot', value: 200, drawn: 10, stock_left: 0 },
  ],
  budget: { budget: 25000, spent: 20400, left: 4600 },
  reversals: { claims: 4, value: 60, users: 5 },
  points_paid_out: 16900,
  daily: [
    { date: '2026-03-01', starts: 700, completions: 0, claims: 650 },
    { date: '2026-03-02', starts: 500, completions: 310, claims: 1040 },
  ],
  periods: [],
};

const count = (description: string) => z.number().int().min(0).openapi({ description });

const chainStatsSchema = z
  .object({
    quest_chain: z.object({
      id: z.uuid(),
      name: z.string(),
      status: z.enum(CHAIN_STATUSES),
      mode: z.enum(MODES),
      start_date: z.string(),
      end_date: z.string(),
      timezone: z.string().openapi({ description: 'The zone the daily series counts days in.' }),
      advertiser_id: z.uuid(),
      platform_id: z.uuid(),
    }),
    users: z
      .object({
        admitted: count(
          'Users the chain took in: with `max_completions`, the places taken; without, every user with an event the chain counted.',
        ),
        started: count('Users with at least one task completed.'),
        completed: count('Users who completed the whole chain.'),
      })
      .openapi({ description: 'The funnel.' }),
    tasks: z.array(
      z.object({
        task_id: z.uuid(),
        sequence_number: z.number().int(),
        name: z.string(),
        completed_users: count('Users who completed this task.'),
        median_seconds_to_complete: z.number().nullable().openapi({
          description:
            "Median time from the user's joining (the later of registration and the chain's start) to the event that completed the task, in seconds; null while nobody completed it.",
        }),
      }),
    ),
    rewards: z.array(
      z.object({
        task_id: z.uuid().nullable().openapi({ description: 'The task whose reward this is; null for the chain reward.' }),
        name: z.string(),
        type: z.string(),
        claims: count('Claims granted.'),
        value_claimed: z.number().openapi({
          description: "What those claims cost: each claim's reward value (a mystery box: the drawn prize's value).",
        }),
      }),
    ),
    prizes: z.array(
      z.object({
        prize_id: z.string(),
        name: z.string(),
        value: z.number().nullable(),
        drawn: count('Times it was drawn.'),
        stock_left: z.number().int().nullable().openapi({ description: 'Null: unlimited.' }),
      }),
    ),
    budget: z.object({
      budget: z.number().nullable().openapi({ description: 'Null: no limit.' }),
      spent: z
        .number()
        .openapi({ description: 'The sum of every granted claim, reversed ones included (the reward was granted).' }),
      left: z.number().nullable().openapi({ description: 'budget - spent; null without a budget.' }),
    }),
    reversals: z.object({
      claims: count('Claims kept but marked reversed (docs/reversals.md).'),
      value: z.number().openapi({ description: 'What those claims cost.' }),
      users: count('Users whose completions in the chain were undone at least once.'),
    }),
    points_paid_out: count(
      "Points credited to users' balances by the claims of the chain's `points` rewards, less the reversals standing now (docs/points.md).",
    ),
    daily: z
      .array(
        z.object({
          date: z.string().openapi({ example: '2026-03-01' }),
          starts: count('First completions.'),
          completions: count('Chains completed.'),
          claims: count('Claims granted.'),
        }),
      )
      .openapi({
        description: "One entry per day of the chain's life (to today while it runs) in its time zone, quiet days as zeros.",
      }),
    periods: z
      .array(
        z.object({
          period_start: z.string(),
          period_end: z.string(),
          completions: count('Users who completed the chain in this run.'),
          claims: count("Claims of this run's rewards."),
        }),
      )
      .openapi({
        description:
          'A repeating chain (docs/quest-language.md): each run with a completion or a claim, in order. Empty for a chain that does not repeat; its funnel and task figures count each user once, whatever the runs.',
      }),
  })
  .openapi('QuestChainStats', { example: STATS_EXAMPLE });

export const statsResponseSchema = successEnvelope(chainStatsSchema);

export function toStatsResponse(stats: ChainStats) {
  const { chain } = stats.definition;
  return {
    quest_chain: {
      id: chain.id,
      name: chain.name,
      status: chain.status,
      mode: chain.mode,
      start_date: formatIsoMillis(chain.startDate),
      end_date: formatIsoMillis(chain.endDate),
      timezone: chain.timezone,
      // A test chain is stored with the test twins' ids; everyone is shown the ids they know (docs/test-mode.md).
      advertiser_id: shownProviderId(chain.advertiserId, chain.mode),
      platform_id: shownProviderId(chain.platformId, chain.mode),
    },
    users: stats.users,
    tasks: stats.tasks.map((task) => ({
      task_id: task.taskId,
      sequence_number: task.sequenceNumber,
      name: task.name,
      completed_users: task.completedUsers,
      median_seconds_to_complete: task.medianSecondsToComplete,
    })),
    rewards: stats.rewards.map((reward) => ({
      task_id: reward.taskId,
      name: reward.name,
      type: reward.type,
      claims: reward.claims,
      value_claimed: reward.valueClaimed,
    })),
    prizes: stats.prizes.map((prize) => ({
      prize_id: prize.prizeId,
      name: prize.name,
      value: prize.value,
      drawn: prize.drawn,
      stock_left: prize.stock,
    })),
    budget: stats.budget,
    reversals: stats.reversals,
    points_paid_out: stats.pointsPaidOut,
    daily: stats.daily.map((day) => ({ date: day.day, starts: day.starts, completions: day.completions, claims: day.claims })),
    periods: stats.runs.map((run) => ({
      period_start: formatIsoMillis(run.runStartUs),
      period_end: formatIsoMillis(run.runEndUs),
      completions: run.completions,
      claims: run.claims,
    })),
  };
}
