import { readStoredChainStats, type StoredPrizeStats } from '../../shared/db/chain-stats-store.js';
import { type ChainDefinition, findChainDefinition } from '../../shared/db/chain-store.js';
import { type DayCounts, dayIn, fillDays } from '../../shared/domain/chain-stats-series.js';
import { storedRun } from '../../shared/domain/recurrence.js';
import { notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';

export interface ReadChainStatsInput {
  chainId: string;
  /** The advertiser reading its own chain's stats: another's chain, or one of the other mode, is not found. Absent: the operator (admin). */
  advertiser?: { providerId: string; livemode: boolean };
}

interface RewardStats {
  /** Null: the chain reward. */
  taskId: string | null;
  name: string;
  type: string;
  claims: number;
  valueClaimed: number;
}

export interface ChainStats {
  definition: ChainDefinition;
  /** admitted: places taken under max_completions, or without a cap every user the chain counted an event of. */
  users: { admitted: number; started: number; completed: number };
  /** In sequence order, every task (zeros while nobody completed it). */
  tasks: {
    taskId: string;
    sequenceNumber: number;
    name: string;
    completedUsers: number;
    medianSecondsToComplete: number | null;
  }[];
  rewards: RewardStats[];
  prizes: StoredPrizeStats[];
  /** spent: what the claims add up to (each claim's value, reversed ones kept: the reward was granted). left: null without a budget. */
  budget: { budget: number | null; spent: number; left: number | null };
  reversals: { claims: number; value: number; users: number };
  /** What the chain's claims of points rewards credited to balances, less their reversals standing now (§18). */
  pointsPaidOut: number;
  daily: DayCounts[];
  /** A repeating chain's runs with something in them, in order (docs/quest-language.md); empty otherwise. */
  runs: { runStartUs: bigint; runEndUs: bigint; completions: number; claims: number }[];
}

/**
 * GET /admin/v1/quest-chains/{id}/stats and the advertiser's GET
 * /v1/quest-chains/{id}/stats (docs/chain-stats.md): the chain's stats counted
 * over its stored rows in one snapshot (shared/db/chain-stats-store.ts).
 */
export async function readChainStats(
  deps: Pick<CoreDeps, 'db' | 'readDb'>,
  input: ReadChainStatsInput,
  now = Date.now(),
): Promise<ChainStats> {
  const definition = await findChainDefinition(deps.db, input.chainId);
  const { advertiser } = input;
  // A test credential's provider is its test twin (docs/test-mode.md): it owns the test chains alone, a live one the live chains alone.
  const visible =
    definition !== null &&
    (!advertiser ||
      (definition.chain.advertiserId === advertiser.providerId && (definition.chain.mode === 'live') === advertiser.livemode));
  if (!visible) throw notFound(`Quest chain ${input.chainId} not found`, advertiser ? 'questChainId' : 'id');
  const { chain, tasks, reward } = definition;
  // The counts tolerate a replica's lag (DATABASE_READ_URL): a whole chain's rows are read there, not on the primary.
  // The chain itself comes from the primary, so one just created is found.
  const stored = await readStoredChainStats(deps.readDb, {
    id: chain.id,
    timezone: chain.timezone,
    repeating: chain.recurrence !== null,
  });

  const taskStats = new Map(stored.tasks.map((task) => [task.taskId, task]));
  const rewardStats = new Map(stored.rewards.map((entry) => [entry.taskId, entry]));
  const rewardOf = (taskId: string | null, name: string, type: string): RewardStats => {
    const counted = rewardStats.get(taskId);
    return { taskId, name, type, claims: counted?.claims ?? 0, valueClaimed: counted?.value ?? 0 };
  };
  const spent = stored.rewards.reduce((sum, entry) => sum + entry.value, 0);
  const lastUs = Math.min(Number(chain.endDate / 1000n), now);
  return {
    definition,
    users: {
      admitted: chain.maxCompletions !== null ? stored.funnel.places : stored.funnel.participants,
      started: stored.funnel.started,
      completed: stored.funnel.completed,
    },
    tasks: tasks.map((task) => ({
      taskId: task.id,
      sequenceNumber: task.sequenceNumber,
      name: task.name,
      completedUsers: taskStats.get(task.id)?.completedUsers ?? 0,
      medianSecondsToComplete: taskStats.get(task.id)?.medianSecondsToComplete ?? null,
    })),
    rewards: [
      ...tasks.map((task) => rewardOf(task.id, task.rewardName, task.rewardType)),
      ...(reward ? [rewardOf(null, reward.name, reward.type)] : []),
    ],
    prizes: stored.prizes,
    budget: { budget: chain.budget, spent, left: chain.budget === null ? null : chain.budget - spent },
    reversals: {
      claims: stored.rewards.reduce((sum, entry) => sum + entry.reversedClaims, 0),
      value: stored.rewards.reduce((sum, entry) => sum + entry.reversedValue, 0),
      users: stored.funnel.reversedUsers,
    },
    pointsPaidOut: stored.pointsPaidOut,
    daily: fillDays(stored.days, {
      firstDay: dayIn(chain.timezone, Number(chain.startDate / 1000n)),
      lastDay: dayIn(chain.timezone, lastUs),
    }),
    runs: stored.runs.map((run) => ({
      ...run,
      runEndUs: storedRun(definition.rules, run.runStartUs)?.endUs ?? run.runStartUs,
    })),
  };
}
