import { findBacktest, insertBacktest, type StoredBacktest } from '../../shared/db/backtest-store.js';
import { countPlatformUsers } from '../../shared/db/user-store.js';
import { type BacktestDraft, emptyTally } from '../../shared/domain/backtest.js';
import { notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';
import { type CreateChainInput, checkChainRules, checkProviders } from '../quest-chains/create-chain.js';

// What the admin API asks of backtests: start one, read one. The run itself
// is a worker's job (run-backtest.ts).

/** The draft in the rules' terms: the tasks get made-up ids (`task-<sequence number>`); nothing is stored as a chain. */
function toDraft(input: CreateChainInput): BacktestDraft {
  const id = (sequenceNumber: number) => `task-${sequenceNumber}`;
  return {
    platformId: input.platformId,
    advertiserId: input.advertiserId,
    rules: {
      allowAnyOrder: input.allowAnyOrder ?? false,
      startUs: input.startDate,
      endUs: input.endDate,
      timezone: input.timezone ?? 'UTC',
      recurrence: input.recurrence ?? null,
      tasks: input.tasks.map((task) => ({
        id: id(task.sequenceNumber),
        sequenceNumber: task.sequenceNumber,
        eventType: task.conditionEventType,
        minAmount: task.conditionMinAmount ?? null,
        currency: task.conditionCurrency ?? null,
        afterUs: task.conditionAfterTimestamp ?? null,
        beforeUs: task.conditionBeforeTimestamp ?? null,
        minCount: task.conditionMinCount ?? 1,
        minTotal: task.conditionMinTotal ?? null,
        streak: task.conditionStreak ?? null,
      })),
    },
    taskRewards: Object.fromEntries(input.tasks.map((task) => [id(task.sequenceNumber), task.rewardValue])),
    chainRewardValue: input.reward?.value ?? null,
    budget: input.budget ?? null,
    maxClaimsPerReward: input.maxClaimsPerReward ?? null,
    maxCompletions: input.maxCompletions ?? null,
  };
}

/**
 * POST /admin/v1/quest-chains/backtest (§12): the chain body is checked as a
 * create would check it (its status is ignored), stored as a running
 * backtest, and queued for a worker (run-backtest.ts),
 * which evaluates it against every registered user of the platform. Answers
 * the stored backtest, running. If Redis is away the job is not queued now;
 * the worker's reconciler queues every running backtest again.
 */
export async function startBacktest(
  deps: Pick<CoreDeps, 'db' | 'logger' | 'backtests'>,
  input: CreateChainInput,
): Promise<StoredBacktest> {
  checkChainRules(input);
  // A test draft runs over the platform's test-mode data (docs/test-mode.md).
  const draft = toDraft({ ...input, ...(await checkProviders(deps.db, input)) });
  const usersTotal = await countPlatformUsers(deps.db, draft.platformId);
  const backtest = await insertBacktest(deps.db, { draft, tally: emptyTally(draft), usersTotal });
  if (!(await deps.backtests.run(backtest.id)))
    deps.logger.warn({ backtestId: backtest.id }, 'backtest not queued (Redis unavailable); the reconciler queues it');
  return backtest;
}

/** GET /admin/v1/backtests/{id}: reads the backtest as its runner last checkpointed it. Starts nothing. */
export async function getBacktest(deps: Pick<CoreDeps, 'db'>, input: { backtestId: string }): Promise<StoredBacktest> {
  const backtest = await findBacktest(deps.db, input.backtestId);
  if (!backtest) throw notFound(`Backtest ${input.backtestId} not found`, 'id');
  return backtest;
}
