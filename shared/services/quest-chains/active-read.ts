import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { pgTimestampToIso, pgTimestampToMicros } from '../../db/timestamps.js';
import { taskStatuses, userProgress } from '../../domain/chain-view.js';
import { dateToMicros, formatIsoMillis } from '../../domain/timestamp.js';
import type { LiveTokenScope } from '../../live/token.js';
import type { ActiveChainCache } from './active-chain-cache.js';
import type { ChainDefinition } from './definitions.js';
import { chainRewardView, questChainView, taskView } from './definition-view.js';

export interface ActiveReadDeps {
  db: Executor;
  chainCache: ActiveChainCache;
  liveTokens: { issue(scope: LiveTokenScope, issuedAtMs?: number): string };
}

interface ReadUser {
  id: string;
  registeredUs: bigint;
}

interface UserState {
  /** completed_at (epoch µs) by task id. */
  completedAt: Map<string, bigint>;
  claimedTasks: Set<string>;
  claimedChains: Set<string>;
}

/**
 * GET /v1/quest-chains/active/{platformUserId}. One statement per read while
 * the platform's definitions are cached (one more when they are not): the
 * active chains' ids come from the cache, so the user, their completions and
 * their claims in those chains are fetched together. An unknown user, or
 * another platform's, answers exactly like an unknown one.
 */
export async function readActiveChains(deps: ActiveReadDeps, platformId: string, platformUserId: string, now = new Date()) {
  return (await loadActiveChains(deps, platformId, platformUserId, { now })).view;
}

export interface LoadOptions {
  now: Date;
  /** The platform's definitions when the caller already holds them (it fingerprints what was read). */
  definitions?: ChainDefinition[];
  /** Issue time of the live token (default `now`): a fixed time makes the token, and so the answer, repeatable. */
  tokenIssuedAtMs?: number;
}

/** The read's view, with the service-side id of the user (null when unknown). */
export async function loadActiveChains(deps: ActiveReadDeps, platformId: string, platformUserId: string, options: LoadOptions) {
  const nowUs = dateToMicros(options.now);
  const definitions = (options.definitions ?? (await deps.chainCache.get(platformId))).filter(
    (d) => d.chain.status === 'active' && d.rules.startUs <= nowUs && nowUs < d.rules.endUs,
  );
  const user = await loadUserState(deps.db, platformId, platformUserId, definitions.map((d) => d.chain.id));
  // The baseline is read with (not after) the progress it describes, so the
  // progress returned is never older than it: a client following the live
  // stream `since` this baseline cannot miss a change that the answer lacks.
  const liveUpdates = {
    token: deps.liveTokens.issue({ platformId, platformUserId }, options.tokenIssuedAtMs ?? options.now.getTime()),
    baselineTimestamp: user?.progressChangedAt ? pgTimestampToIso(user.progressChangedAt) : null,
  };
  if (!user) return { userId: null, view: { liveUpdates, quest_chains: [], claimable_tasks: [], user: { exists: false } } };

  const quest_chains = definitions.map((definition) => chainEntry(definition, user, user.state));
  const claimable_tasks = definitions.flatMap((definition) => claimableTasks(definition, user.state));
  return { userId: user.id, view: { liveUpdates, quest_chains, claimable_tasks, user: { exists: true } } };
}

interface UserRow extends Record<string, unknown> {
  id: string;
  created_at: string;
  progress_changed_at: string | null;
  completions: string | [string, string][];
  claims: string | [string, string | null][];
}

// The driver may hand json columns over unparsed (drizzle configures postgres.js that way).
const fromJson = <T>(value: string | T): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

async function loadUserState(db: Executor, platformId: string, platformUserId: string, chainIds: string[]) {
  const chains = chainIds.length > 0 ? sql`array[${sql.join(chainIds.map((id) => sql`${id}::uuid`), sql`, `)}]` : sql`array[]::uuid[]`;
  const [row] = await db.execute<UserRow>(sql`
    select u.id, u.created_at::text as created_at, u.progress_changed_at::text as progress_changed_at,
      coalesce((select json_agg(json_build_array(c.task_id, c.completed_at::text)) from task_completions c
                where c.user_id = u.id and c.chain_id = any(${chains})), '[]'::json) as completions,
      coalesce((select json_agg(json_build_array(r.chain_id, r.task_id)) from reward_claims r
                where r.user_id = u.id and r.chain_id = any(${chains})), '[]'::json) as claims
    from users u
    where u.platform_id = ${platformId} and u.platform_user_id = ${platformUserId}`);
  if (!row) return null;
  const state: UserState = { completedAt: new Map(), claimedTasks: new Set(), claimedChains: new Set() };
  for (const [taskId, completedAt] of fromJson(row.completions)) state.completedAt.set(taskId, pgTimestampToMicros(completedAt));
  for (const [chainId, taskId] of fromJson(row.claims)) {
    if (taskId === null) state.claimedChains.add(chainId);
    else state.claimedTasks.add(taskId);
  }
  return {
    id: row.id,
    registeredUs: pgTimestampToMicros(row.created_at),
    progressChangedAt: row.progress_changed_at,
    state,
  };
}

function chainEntry(definition: ChainDefinition, user: ReadUser, state: UserState) {
  const { chain, tasks, reward, rules } = definition;
  const completedIds = new Set(tasks.filter((task) => state.completedAt.has(task.id)).map((task) => task.id));
  const statuses = taskStatuses(chain.allowAnyOrder, tasks, completedIds);
  const progress = userProgress({
    totalTasks: tasks.length,
    completions: [...completedIds].map((id) => ({ completedUs: state.completedAt.get(id)! })),
    registeredUs: user.registeredUs,
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
