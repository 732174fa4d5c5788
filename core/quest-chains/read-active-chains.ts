import type { ChainDefinition, TaskRow } from '../../shared/db/chain-store.js';
import { loadReadUserState, type ReadUserState } from '../../shared/db/progress-store.js';
import { admitsNoOneNew } from '../../shared/domain/admission.js';
import {
  isChainCompleted,
  type TaskProgress,
  type TaskUserStatus,
  taskProgress,
  taskStatuses,
  type UserProgress,
  userProgress,
} from '../../shared/domain/chain-view.js';
import type { SenderUserId, ServiceUserId } from '../../shared/domain/ids.js';
import { inRun, type Run, storedRun } from '../../shared/domain/recurrence.js';
import { claimableAfterHold } from '../../shared/domain/reward-hold.js';
import { runOf, runStartOf } from '../../shared/domain/runs.js';
import { dateToMicros } from '../../shared/domain/timestamp.js';
import { type ChainRules, hasTallies } from '../../shared/domain/walk.js';
import type { CoreDeps } from '../deps.js';

export interface ReadActiveChainsInput {
  platformId: string;
  platformUserId: SenderUserId;
  /** The read's clock (default: now): chains with `start_date <= now < end_date` are shown. */
  nowUs?: bigint | undefined;
  /** The platform's definitions when the caller already holds them (it fingerprints what was read). */
  definitions?: readonly ChainDefinition[] | undefined;
  /** Issue time of the live token (default `nowUs`): a fixed time makes the token, and so the answer, repeatable. */
  tokenIssuedUs?: bigint | undefined;
  /** The caller's mode (its credential's), carried by the live token to the stream's `ready` (docs/test-mode.md). */
  livemode: boolean;
}

/** One active chain as the user stands in it. */
export interface ActiveChainProgress {
  definition: ChainDefinition;
  /** completed, available or locked, by task id. */
  taskStatuses: ReadonlyMap<string, TaskUserStatus>;
  /** Counted, summed and streak tasks' progress by task id (docs/quest-language.md); other tasks are absent. */
  taskProgress: ReadonlyMap<string, TaskProgress>;
  progress: UserProgress;
  /** Completed, with a chain reward not yet claimed. */
  rewardClaimable: boolean;
  /** While claimable: when a claim is accepted (the completion plus the chain's reward hold, docs/reversals.md). */
  rewardClaimableUs: bigint | null;
  /** Every place of max_completions is taken and the user holds none: the chain will not count their events (docs/budgets.md). */
  capReached: boolean;
  /** A repeating chain's current run, the one shown (docs/quest-language.md); null for a chain that does not repeat. */
  run: Run | null;
  /** A repeating chain's runs whose chain reward is claimable (earlier runs included), in run order; empty otherwise. */
  claimableRuns: ClaimableRun[];
}

/** A completed run of a repeating chain whose chain reward is not claimed yet. */
interface ClaimableRun {
  runStartUs: bigint;
  /** Null for a chain that does not repeat (its one run). */
  run: Run | null;
  completedUs: bigint;
  claimableUs: bigint;
}

/** §7: a completed task whose reward has not been claimed. */
export interface ClaimableTask {
  chainId: string;
  task: TaskRow;
  completedUs: bigint;
  /** The completion plus the chain's reward hold: a claim before answers 409 reward_on_hold. */
  claimableUs: bigint;
  /** The run of a repeating chain it was completed in; null for a chain that does not repeat. */
  run: Run | null;
}

export interface ActiveChains {
  /** The service-side id of the user; null when the platform has not registered them (then nothing else is shown). */
  userId: ServiceUserId | null;
  /** Live-updates token for this platform user. */
  liveToken: string;
  /** The user's latest progress change (the live stream's `since`), null if none ever. */
  baselineUs: bigint | null;
  chains: ActiveChainProgress[];
  /** In chain then sequence order. */
  claimableTasks: ClaimableTask[];
}

/**
 * GET /v1/quest-chains/active/{platformUserId}. One statement per read while
 * the platform's definitions are cached (one more when they are not): the
 * active chains' ids come from the cache, so the user, their completions and
 * their claims in those chains are fetched together. An unknown user, or
 * another platform's, answers exactly like an unknown one.
 */
export async function readActiveChains(
  deps: Pick<CoreDeps, 'readDb' | 'chainCache' | 'liveTokens'>,
  input: ReadActiveChainsInput,
): Promise<ActiveChains> {
  const { platformId, platformUserId } = input;
  const nowUs = input.nowUs ?? dateToMicros(new Date());
  const definitions = (input.definitions ?? (await deps.chainCache.get(platformId))).filter(
    (d) => d.chain.status === 'active' && d.rules.startUs <= nowUs && nowUs < d.rules.endUs,
  );
  // From the read replica when there is one (progress is eventual anyway; the definitions come from the primary's cache).
  const full = definitions.filter((d) => admitsNoOneNew(d.chain)).map((d) => d.chain.id);
  const withTallies = definitions.filter((d) => hasTallies(d.rules)).map((d) => d.chain.id);
  const user = await loadReadUserState(
    deps.readDb,
    platformId,
    platformUserId,
    definitions.map((d) => d.chain.id),
    full,
    withTallies,
  );
  // The baseline is read with (not after) the progress it describes, so the
  // progress returned is never older than it: a client following the live
  // stream `since` this baseline cannot miss a change that the answer lacks.
  const liveToken = deps.liveTokens.issue(
    { platformId, platformUserId, livemode: input.livemode },
    Number((input.tokenIssuedUs ?? nowUs) / 1000n),
  );
  const baselineUs = user?.progressChangedUs ?? null;
  if (!user) return { userId: null, liveToken, baselineUs, chains: [], claimableTasks: [] };
  return {
    userId: user.id,
    liveToken,
    baselineUs,
    chains: definitions.map((definition) => chainProgress(definition, user, nowUs)),
    claimableTasks: definitions.flatMap((definition) => claimableTasks(definition, user)),
  };
}

/** The chain as the user stands in its current run (the only run of a chain that does not repeat). */
function chainProgress(definition: ChainDefinition, user: ReadUserState, nowUs: bigint): ActiveChainProgress {
  const { chain, tasks, reward, rules } = definition;
  // Only active chains are read, so `now` is inside the chain's dates and in a run.
  const run = runOf(rules, nowUs)!;
  const runStart = runStartOf(rules, run);
  const completedIds = new Set(tasks.filter((task) => user.completedAt.has(inRun(task.id, runStart))).map((task) => task.id));
  const progress = userProgress({
    totalTasks: tasks.length,
    completions: [...completedIds].map((id) => ({ completedUs: user.completedAt.get(inRun(id, runStart))! })),
    registeredUs: user.registeredUs,
    chainStartUs: rules.startUs,
  });
  // Every completed run whose chain reward is unclaimed; a chain that does not repeat has at most its one.
  const claimable =
    reward === null ? [] : completedRuns(definition, user).filter((r) => !user.claimedChains.has(inRun(chain.id, r.runStartUs)));
  const first = claimable[0];
  return {
    definition,
    // A place is kept with a first completion in any run (docs/budgets.md); only a full chain asks.
    capReached: admitsNoOneNew(chain) && !hasCompletionIn(definition, user) && !user.admittedChains.has(chain.id),
    taskStatuses: taskStatuses(chain.allowAnyOrder, tasks, completedIds),
    taskProgress: tasksProgress(rules, user, completedIds, runStart, nowUs),
    progress,
    rewardClaimable: first !== undefined,
    rewardClaimableUs:
      first === undefined
        ? null
        : claimable.reduce((earliest, r) => (r.claimableUs < earliest ? r.claimableUs : earliest), first.claimableUs),
    run: rules.recurrence ? run : null,
    claimableRuns: rules.recurrence ? claimable : [],
  };
}

const hasCompletionIn = (definition: ChainDefinition, user: ReadUserState) =>
  user.completions.some((c) => definition.tasks.some((t) => t.id === c.taskId));

/** The runs in which the user completed every task, with when (the latest completion) and from when the chain reward is claimable. */
function completedRuns(definition: ChainDefinition, user: ReadUserState): ClaimableRun[] {
  const { tasks, rules, chain } = definition;
  const latestByRun = new Map<bigint, { done: number; latestUs: bigint }>();
  for (const completion of user.completions) {
    if (!tasks.some((task) => task.id === completion.taskId)) continue;
    const known = latestByRun.get(completion.runStartUs);
    const latestUs = known === undefined || completion.completedUs > known.latestUs ? completion.completedUs : known.latestUs;
    latestByRun.set(completion.runStartUs, { done: (known?.done ?? 0) + 1, latestUs });
  }
  return [...latestByRun]
    .filter(([, { done }]) => isChainCompleted(tasks.length, done))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([runStart, { latestUs }]) => ({
      runStartUs: runStart,
      run: storedRun(rules, runStart),
      completedUs: latestUs,
      claimableUs: claimableAfterHold(latestUs, chain.rewardHoldSeconds),
    }));
}

function tasksProgress(
  rules: ChainRules,
  user: ReadUserState,
  completedIds: ReadonlySet<string>,
  runStart: bigint,
  nowUs: bigint,
): Map<string, TaskProgress> {
  const shown = new Map<string, TaskProgress>();
  for (const task of rules.tasks) {
    const progress = taskProgress(
      task,
      user.tallies.get(inRun(task.id, runStart)),
      completedIds.has(task.id),
      nowUs,
      rules.timezone ?? 'UTC',
    );
    if (progress !== undefined) shown.set(task.id, progress);
  }
  return shown;
}

/** Completed tasks whose reward is unclaimed, in every run (a repeating chain's earlier runs included), in run then sequence order. */
function claimableTasks(definition: ChainDefinition, user: ReadUserState): ClaimableTask[] {
  const { chain, rules } = definition;
  const byTask = new Map(definition.tasks.map((task) => [task.id, task]));
  return user.completions
    .filter((c) => byTask.has(c.taskId) && !user.claimedTasks.has(inRun(c.taskId, c.runStartUs)))
    .sort((a, b) =>
      a.runStartUs < b.runStartUs
        ? -1
        : a.runStartUs > b.runStartUs
          ? 1
          : byTask.get(a.taskId)!.sequenceNumber - byTask.get(b.taskId)!.sequenceNumber,
    )
    .map((c) => ({
      chainId: chain.id,
      task: byTask.get(c.taskId)!,
      completedUs: c.completedUs,
      claimableUs: claimableAfterHold(c.completedUs, chain.rewardHoldSeconds),
      run: storedRun(rules, c.runStartUs),
    }));
}
