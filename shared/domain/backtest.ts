import { isChainCompleted } from './chain-view.js';
import type { ChainRules, Completion } from './walk.js';

// Product rules §12: what a draft chain would have given away, counted user
// by user from the completions the §5 walk (computeCompletions) predicts. The
// counts are plain numbers so a running backtest can checkpoint them as JSON
// and another process can carry on from there.

/** A draft chain as a backtest needs it: its rules (task ids are made up) and its reward values. */
export interface BacktestDraft {
  platformId: string;
  advertiserId: string;
  rules: ChainRules;
  /** task id -> reward_value */
  taskRewards: Record<string, number>;
  /** The chain reward's value; null when it has none or no value. */
  chainRewardValue: number | null;
  /** The draft's limits (docs/budgets.md); absent in drafts stored before they existed: none. */
  budget?: number | null;
  maxClaimsPerReward?: number | null;
  maxCompletions?: number | null;
}

const BACKTEST_SAMPLE_SIZE = 20;

export interface BacktestTally {
  usersEvaluated: number;
  /** Users with at least one predicted task completion. */
  usersStarted: number;
  usersCompleted: number;
  /** Completed runs (a repeating chain's users can complete it once a run; otherwise usersCompleted). Absent in tallies checkpointed before runs existed. */
  runsCompleted?: number;
  /** task id -> completions predicted (a repeating chain's: one a run) */
  tasksCompleted: Record<string, number>;
  /** Sum of reward_value over predicted task completions. */
  taskRewards: number;
  /** The first users (in the order evaluated) with a predicted completion. */
  sample: { platformUserId: string; completedTasks: number }[];
}

export function emptyTally(draft: BacktestDraft): BacktestTally {
  return {
    usersEvaluated: 0,
    usersStarted: 0,
    usersCompleted: 0,
    runsCompleted: 0,
    tasksCompleted: Object.fromEntries(draft.rules.tasks.map((task) => [task.id, 0])),
    taskRewards: 0,
    sample: [],
  };
}

/**
 * Adds one user's predicted completions to the tally (in place), given per
 * run: a chain that does not repeat has one; each run of a repeating chain
 * earns its rewards again (docs/quest-language.md).
 */
export function tallyUser(
  tally: BacktestTally,
  draft: BacktestDraft,
  platformUserId: string,
  runs: readonly ReadonlyMap<string, Completion>[],
): void {
  tally.usersEvaluated += 1;
  const done = Math.max(0, ...runs.map((completions) => completions.size));
  if (done === 0) return;
  tally.usersStarted += 1;
  const completedRuns = runs.filter((completions) => isChainCompleted(draft.rules.tasks.length, completions.size)).length;
  // A tally checkpointed before runs existed counted one run per completing user.
  const runsBefore = tally.runsCompleted ?? tally.usersCompleted;
  if (completedRuns > 0) tally.usersCompleted += 1;
  tally.runsCompleted = runsBefore + completedRuns;
  for (const completions of runs) {
    for (const taskId of completions.keys()) {
      tally.tasksCompleted[taskId] = (tally.tasksCompleted[taskId] ?? 0) + 1;
      tally.taskRewards += draft.taskRewards[taskId] ?? 0;
    }
  }
  if (tally.sample.length < BACKTEST_SAMPLE_SIZE) tally.sample.push({ platformUserId, completedTasks: done });
}

export interface BacktestResult {
  usersEvaluated: number;
  usersStarted: number;
  usersCompleted: number;
  /** In sequence order. */
  tasks: { sequenceNumber: number; usersCompleted: number }[];
  rewardCost: { taskRewards: number; chainRewards: number };
  /**
   * The cost against the draft's budget: `projectedCost` is what the predicted
   * completions would cost if each were claimed, each reward's claims capped
   * at max_claims_per_reward and max_completions; `withinBudget` whether the budget covers it (true without one).
   */
  budget: { budget: number | null; projectedCost: number; withinBudget: boolean };
  sample: BacktestTally['sample'];
}

/**
 * What `claims` claims of a reward worth `value` cost under the draft's caps:
 * max_claims_per_reward, and max_completions (no more users than that are
 * admitted, so no reward is earned by more: a bound, since which users would
 * get the places is not predicted).
 */
const cappedCost = (draft: BacktestDraft, claims: number, value: number) =>
  Math.min(claims, draft.maxClaimsPerReward ?? Infinity, draft.maxCompletions ?? Infinity) * value;

export function backtestResult(tally: BacktestTally, draft: BacktestDraft): BacktestResult {
  const tasks = [...draft.rules.tasks].sort((a, b) => a.sequenceNumber - b.sequenceNumber);
  const projectedCost =
    tasks.reduce((sum, task) => sum + cappedCost(draft, tally.tasksCompleted[task.id] ?? 0, draft.taskRewards[task.id] ?? 0), 0) +
    cappedCost(draft, tally.runsCompleted ?? tally.usersCompleted, draft.chainRewardValue ?? 0);
  const budget = draft.budget ?? null;
  return {
    usersEvaluated: tally.usersEvaluated,
    usersStarted: tally.usersStarted,
    usersCompleted: tally.usersCompleted,
    tasks: tasks.map((task) => ({ sequenceNumber: task.sequenceNumber, usersCompleted: tally.tasksCompleted[task.id] ?? 0 })),
    rewardCost: {
      taskRewards: tally.taskRewards,
      chainRewards: (draft.chainRewardValue ?? 0) * (tally.runsCompleted ?? tally.usersCompleted),
    },
    budget: { budget, projectedCost, withinBudget: budget === null || projectedCost <= budget },
    sample: tally.sample,
  };
}
