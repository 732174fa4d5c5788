import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { rewardClaims, taskCompletions, users } from '../../db/schema/index.js';
import { pgTimestampToMicros } from '../../db/timestamps.js';
import { taskStatuses, userProgress } from '../../domain/chain-view.js';
import { dateToMicros, formatIsoMillis } from '../../domain/timestamp.js';
import type { LiveTokenScope } from '../../live/token.js';
import type { ActiveChainCache } from './active-chain-cache.js';
import type { ChainDefinition } from './definitions.js';
import { chainRewardView, questChainView, taskView } from './definition-view.js';

export interface ActiveReadDeps {
  db: Executor;
  chainCache: ActiveChainCache;
  liveTokens: { issue(scope: LiveTokenScope): string };
}

interface ReadUser {
  id: string;
  createdAt: Date;
}

interface UserState {
  /** completed_at (epoch µs) by task id. */
  completedAt: Map<string, bigint>;
  claimedTasks: Set<string>;
  claimedChains: Set<string>;
}

/**
 * GET /v1/quest-chains/active/{platformUserId}. A bounded number of queries
 * whatever the number of chains and tasks: the user; the platform's active
 * definitions (3, usually none: cached); the user's completions and claims in
 * those chains (2, in parallel). An unknown user, or another platform's,
 * costs only the first and answers exactly like an unknown one.
 */
export async function readActiveChains(deps: ActiveReadDeps, platformId: string, platformUserId: string, now = new Date()) {
  // The baseline is read before the progress it describes, so the progress
  // returned is never older than it: a client following the live stream
  // `since` this baseline cannot miss a change that the answer lacks.
  const [user] = await deps.db
    .select({ id: users.id, createdAt: users.createdAt, progressChangedAt: users.progressChangedAt })
    .from(users)
    .where(and(eq(users.platformId, platformId), eq(users.platformUserId, platformUserId)))
    .limit(1);
  const liveUpdates = {
    token: deps.liveTokens.issue({ platformId, platformUserId }),
    baselineTimestamp: user?.progressChangedAt ? user.progressChangedAt.toISOString() : null,
  };
  if (!user) return { liveUpdates, quest_chains: [], claimable_tasks: [], user: { exists: false } };

  const nowUs = dateToMicros(now);
  const definitions = (await deps.chainCache.get(platformId)).filter(
    (d) => d.chain.status === 'active' && d.rules.startUs <= nowUs && nowUs < d.rules.endUs,
  );
  const state = await loadUserState(deps.db, user.id, definitions.map((d) => d.chain.id));
  const quest_chains = definitions.map((definition) => chainEntry(definition, user, state));
  const claimable_tasks = definitions.flatMap((definition) => claimableTasks(definition, state));
  return { liveUpdates, quest_chains, claimable_tasks, user: { exists: true } };
}

async function loadUserState(db: Executor, userId: string, chainIds: string[]): Promise<UserState> {
  const state: UserState = { completedAt: new Map(), claimedTasks: new Set(), claimedChains: new Set() };
  if (chainIds.length === 0) return state;
  const [completions, claims] = await Promise.all([
    db
      .select({ taskId: taskCompletions.taskId, completedAt: taskCompletions.completedAt })
      .from(taskCompletions)
      .where(and(eq(taskCompletions.userId, userId), inArray(taskCompletions.chainId, chainIds))),
    db
      .select({ chainId: rewardClaims.chainId, taskId: rewardClaims.taskId })
      .from(rewardClaims)
      .where(and(eq(rewardClaims.userId, userId), inArray(rewardClaims.chainId, chainIds))),
  ]);
  for (const row of completions) state.completedAt.set(row.taskId, pgTimestampToMicros(row.completedAt));
  for (const row of claims) {
    if (row.taskId === null) state.claimedChains.add(row.chainId);
    else state.claimedTasks.add(row.taskId);
  }
  return state;
}

function chainEntry(definition: ChainDefinition, user: ReadUser, state: UserState) {
  const { chain, tasks, reward, rules } = definition;
  const completedIds = new Set(tasks.filter((task) => state.completedAt.has(task.id)).map((task) => task.id));
  const statuses = taskStatuses(chain.allowAnyOrder, tasks, completedIds);
  const progress = userProgress({
    totalTasks: tasks.length,
    completions: [...completedIds].map((id) => ({ completedUs: state.completedAt.get(id)! })),
    registeredUs: dateToMicros(user.createdAt),
    chainStartUs: rules.startUs,
  });
  return {
    quest_chain: questChainView(chain),
    tasks: tasks.map((task) => ({ ...taskView(task), user_status: statuses.get(task.id)! })),
    user_progress: {
      status: progress.status,
      progress: progress.progress,
      joined_at: formatIsoMillis(progress.joinedUs),
      completed_at: progress.completedUs === null ? null : formatIsoMillis(progress.completedUs),
      completed_tasks: progress.completedTasks,
      total_tasks: progress.totalTasks,
    },
    chain_reward: reward
      ? { ...chainRewardView(reward), claimable: progress.status === 'completed' && !state.claimedChains.has(chain.id) }
      : null,
  };
}

/** §7: completed tasks whose reward has not been claimed, in chain then sequence order. */
function claimableTasks(definition: ChainDefinition, state: UserState) {
  return definition.tasks.flatMap((task) => {
    const completedUs = state.completedAt.get(task.id);
    if (completedUs === undefined || state.claimedTasks.has(task.id)) return [];
    return [
      {
        task_id: task.id,
        quest_chain_id: definition.chain.id,
        sequence_number: task.sequenceNumber,
        reward_type: task.rewardType,
        reward_name: task.rewardName,
        reward_value: task.rewardValue,
        reward_image_urls: task.rewardImageUrls ?? null,
        completed_at: formatIsoMillis(completedUs),
      },
    ];
  });
}

export type ActiveChainsView = Awaited<ReturnType<typeof readActiveChains>>;
