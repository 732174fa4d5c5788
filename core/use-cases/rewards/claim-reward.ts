import type { SenderUserId, ServiceUserId } from '../../../shared/domain/ids.js';
import { findChainReward, findClaim, findTaskReward, insertClaim, type Reward, type RewardClaim, type RewardKind } from '../../../shared/db/reward-store.js';
import { findUserId } from '../../../shared/db/user-store.js';
import { withTransaction } from '../../../shared/db/transaction.js';
import { insertMessages } from '../../../shared/db/webhook-message-store.js';
import { conflict, invalidInput } from '../../../shared/errors.js';
import type { CoreDeps } from '../../deps.js';
import { claimFact } from '../webhooks/claim-fact.js';

/** The claimer (a platform's user) and exactly one of a task (its reward) or a chain (its chain reward). */
export type ClaimRewardInput = { platformId: string; platformUserId: SenderUserId } & (
  | { taskId: string; chainId?: undefined }
  | { chainId: string; taskId?: undefined }
);

export interface ClaimedReward extends RewardClaim {
  /** True when the reward had been claimed before: the first claim is returned. */
  alreadyClaimed: boolean;
}

interface ClaimTarget {
  kind: RewardKind;
  chainId: string;
  taskId: string | null;
  reward: Reward;
}

/**
 * Product rules §7: grants a completed task's or chain's reward at most once.
 * The unique key reward_claims_once decides, never a prior read: the insert
 * either creates the claim or does nothing, and then the first claim is read.
 * Earned is earned: the chain's current status does not matter. A new claim
 * writes its reward.claimed webhook messages in the same transaction (§10),
 * enqueued for delivery after the commit (best effort: the sweeper covers).
 */
export async function claimReward(deps: Pick<CoreDeps, 'db' | 'webhooks'>, input: ClaimRewardInput): Promise<ClaimedReward> {
  const { db } = deps;
  const userId = await findUserId(db, input.platformId, input.platformUserId);
  if (!userId) throw invalidInput('platform_user_id: no registered user with this id', 'platform_user_id', 'user_not_registered');
  const target =
    input.taskId !== undefined
      ? await taskTarget(deps, input.platformId, userId, input.taskId)
      : await chainTarget(deps, input.platformId, userId, input.chainId);

  const granted = await withTransaction(db, async (tx) => {
    const claim = await insertClaim(tx, { userId, ...target });
    return claim && { claim, messageIds: await insertMessages(tx, [claimFact(input.platformId, input.platformUserId, claim)]) };
  });
  if (granted) {
    if (granted.messageIds.length > 0) await deps.webhooks.deliver(granted.messageIds.map((messageId) => ({ messageId, attempt: 0 })));
    return { ...granted.claim, alreadyClaimed: false };
  }
  const existing = await findClaim(db, userId, target.chainId, target.taskId);
  if (!existing) throw new Error('reward claim neither inserted nor found');
  return { ...existing, alreadyClaimed: true };
}

async function taskTarget(deps: Pick<CoreDeps, 'db'>, platformId: string, userId: ServiceUserId, taskId: string): Promise<ClaimTarget> {
  const task = await findTaskReward(deps.db, platformId, userId, taskId);
  if (!task) throw invalidInput('task_id: no such task for your platform', 'task_id', 'task_not_found');
  if (!task.completed) throw conflict('reward_not_claimable', 'The task is not completed yet; its reward is not claimable', 'task_id');
  return { kind: 'task', chainId: task.chainId, taskId, reward: task.reward };
}

async function chainTarget(deps: Pick<CoreDeps, 'db'>, platformId: string, userId: ServiceUserId, chainId: string): Promise<ClaimTarget> {
  const chain = await findChainReward(deps.db, platformId, userId, chainId);
  if (!chain) throw invalidInput('quest_chain_id: no such quest chain for your platform', 'quest_chain_id', 'quest_chain_not_found');
  if (!chain.reward) throw conflict('reward_not_claimable', 'The quest chain has no chain reward', 'quest_chain_id');
  if (!chain.completed) throw conflict('reward_not_claimable', 'The quest chain is not completed yet; its reward is not claimable', 'quest_chain_id');
  return { kind: 'chain', chainId, taskId: null, reward: chain.reward };
}
