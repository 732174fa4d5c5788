import { z } from '@hono/zod-openapi';
import type { StoredBacktest } from '../../../../shared/db/backtest-store.js';
import { BACKTEST_STATUSES } from '../../../../shared/db/schema/backtests.js';
import { successEnvelope } from '../../../http/envelope.js';

export const backtestIdParams = z.object({
  id: z.uuid().openapi({ param: { name: 'id', in: 'path' }, example: 'e7f8a9b0-c1d2-4e3f-8a4b-5c6d7e8f9a0b' }),
});

const progressSchema = z.object({
  users_done: z.number().int(),
  users_total: z
    .number()
    .int()
    .openapi({ description: 'Registered users of the platform when it started (users registered since are evaluated too).' }),
});

const resultSchema = z
  .object({
    users_evaluated: z.number().int(),
    users_started: z.number().int().openapi({ description: 'Users predicted to complete at least one task.' }),
    users_completed: z
      .number()
      .int()
      .openapi({ description: 'Users predicted to complete every task (in at least one run of a repeating chain).' }),
    tasks: z.array(
      z.object({
        sequence_number: z.number().int(),
        users_completed: z.number().int().openapi({
          description:
            'Predicted completions of the task: one per user, or one per user and run of a repeating chain (docs/quest-language.md).',
        }),
      }),
    ),
    reward_cost: z.object({
      task_rewards: z.number().openapi({ description: 'Sum of reward_value over the predicted task completions.' }),
      chain_rewards: z.number().openapi({
        description: 'The chain reward value (0 when none) × users_completed (× the completed runs, for a repeating chain).',
      }),
    }),
    budget: z
      .object({
        budget: z.number().nullable().openapi({ description: "The draft's budget; null without one." }),
        projected_cost: z.number().openapi({
          description:
            "What the predicted completions would cost if every one were claimed, each reward capped at the draft's max_claims_per_reward and max_completions (a bound: which users would get the places is not predicted).",
        }),
        within_budget: z.boolean().openapi({ description: 'The budget covers projected_cost (true without a budget).' }),
      })
      .openapi({ description: 'The projected cost against the budget (docs/budgets.md).' }),
    sample: z
      .array(z.object({ platform_user_id: z.string(), completed_tasks: z.number().int() }))
      .openapi({ description: 'Up to 20 users predicted to complete at least one task, in the order evaluated.' }),
  })
  .openapi('BacktestResult');

export const backtestSchema = z
  .object({
    backtest_id: z.uuid(),
    status: z.enum(BACKTEST_STATUSES),
    progress: progressSchema,
    result: resultSchema.nullable().openapi({ description: 'Set once `status` is `completed`.' }),
    error: z.string().nullable().openapi({ description: 'Why it failed, once `status` is `failed`.' }),
  })
  .openapi('Backtest', {
    example: {
      backtest_id: 'e7f8a9b0-c1d2-4e3f-8a4b-5c6d7e8f9a0b',
      status: 'completed',
      progress: { users_done: 1200, users_total: 1200 },
      result: {
        users_evaluated: 1200,
        users_started: 310,
        users_completed: 42,
        tasks: [
          { sequence_number: 1, users_completed: 310 },
          { sequence_number: 2, users_completed: 42 },
        ],
        reward_cost: { task_rewards: 41500, chain_rewards: 210 },
        budget: { budget: 50000, projected_cost: 41710, within_budget: true },
        sample: [{ platform_user_id: 'user-123', completed_tasks: 2 }],
      },
      error: null,
    },
  });

const startedBacktestSchema = z
  .object({ backtest_id: z.uuid(), status: z.literal('running') })
  .openapi('StartedBacktest', { example: { backtest_id: 'e7f8a9b0-c1d2-4e3f-8a4b-5c6d7e8f9a0b', status: 'running' } });

export const backtestResponseSchema = successEnvelope(backtestSchema);
export const startedBacktestResponseSchema = successEnvelope(startedBacktestSchema);

export const toStartedBacktestResponse = (backtest: StoredBacktest) => ({ backtest_id: backtest.id, status: 'running' as const });

export function toBacktestResponse(backtest: StoredBacktest): z.infer<typeof backtestSchema> {
  const { result } = backtest;
  return {
    backtest_id: backtest.id,
    status: backtest.status,
    progress: { users_done: backtest.usersDone, users_total: backtest.usersTotal },
    result:
      backtest.status !== 'completed' || result === null
        ? null
        : {
            users_evaluated: result.usersEvaluated,
            users_started: result.usersStarted,
            users_completed: result.usersCompleted,
            tasks: result.tasks.map((task) => ({ sequence_number: task.sequenceNumber, users_completed: task.usersCompleted })),
            reward_cost: { task_rewards: result.rewardCost.taskRewards, chain_rewards: result.rewardCost.chainRewards },
            // Results stored before budgets existed have none: no budget, the uncapped cost.
            budget: result.budget
              ? {
                  budget: result.budget.budget,
                  projected_cost: result.budget.projectedCost,
                  within_budget: result.budget.withinBudget,
                }
              : {
                  budget: null,
                  projected_cost: result.rewardCost.taskRewards + result.rewardCost.chainRewards,
                  within_budget: true,
                },
            sample: result.sample.map((user) => ({
              platform_user_id: user.platformUserId,
              completed_tasks: user.completedTasks,
            })),
          },
    error: backtest.error,
  };
}

export type BacktestResponse = ReturnType<typeof toBacktestResponse>;
