import type { Sql } from '../../db/client.js';
import { findUserId } from '../users/find.js';
import { pgTimestampToMicros } from '../../db/timestamps.js';
import { invalidInput, conflict } from '../../errors.js';
import { chainCompletedBy, type RewardKind, type RewardView } from './reward.js';

export type ClaimInput = { platform_user_id: string } & ({ task_id: string; quest_chain_id?: undefined } | { quest_chain_id: string; task_id?: undefined });

export interface ClaimedReward {
  claimId: string;
  kind: RewardKind;
  taskId: string | null;
  chainId: string;
  reward: RewardView;
  claimedUs: bigint;
}

interface ClaimTarget {
  kind: RewardKind;
  chainId: string;
  taskId: string | null;
  reward: RewardView;
}

export interface ClaimRow {
  id: string;
  kind: RewardKind;
  chain_id: string;
  task_id: string | null;
  reward: RewardView;
  claimed_at: string;
}

/**
 * Product rules §7: grants a completed task's or chain's reward at most once.
 * The unique key reward_claims_once decides, never a prior read: the insert
 * either creates the claim or does nothing, and then the first claim is read.
 * Earned is earned: the chain's current status does not matter.
 */
export async function claimReward(
  deps: { sql: Sql },
  platformId: string,
  input: ClaimInput,
): Promise<ClaimedReward & { alreadyClaimed: boolean }> {
  const userId = await findUserId(deps.sql, platformId, input.platform_user_id);
  if (!userId) throw invalidInput('platform_user_id: no registered user with this id');
  const target =
    input.task_id !== undefined
      ? await taskTarget(deps.sql, platformId, userId, input.task_id)
      : await chainTarget(deps.sql, platformId, userId, input.quest_chain_id);

  const [created] = await deps.sql<ClaimRow[]>`
    insert into reward_claims (user_id, kind, chain_id, task_id, reward)
    values (${userId}, ${target.kind}, ${target.chainId}, ${target.taskId}, ${JSON.stringify(target.reward)}::jsonb)
    on conflict on constraint reward_claims_once do nothing
    returning id, kind, chain_id, task_id, reward, claimed_at`;
  if (created) return { ...toClaimed(created), alreadyClaimed: false };

  const [existing] = await deps.sql<ClaimRow[]>`
    select id, kind, chain_id, task_id, reward, claimed_at from reward_claims
    where user_id = ${userId} and chain_id = ${target.chainId} and task_id is not distinct from ${target.taskId}::uuid`;
  if (!existing) throw new Error('reward claim neither inserted nor found');
  return { ...toClaimed(existing), alreadyClaimed: true };
}

export const toClaimed = (row: ClaimRow): ClaimedReward => ({
  claimId: row.id,
  kind: row.kind,
  taskId: row.task_id,
  chainId: row.chain_id,
  reward: row.reward,
  claimedUs: pgTimestampToMicros(row.claimed_at),
});

async function taskTarget(sql: Sql, platformId: string, userId: string, taskId: string): Promise<ClaimTarget> {
  const [task] = await sql<
    { chain_id: string; reward_type: string; reward_name: string; reward_value: number; reward_image_urls: string[] | null; completed: boolean }[]
  >`
    select t.chain_id, t.reward_type, t.reward_name, t.reward_value, t.reward_image_urls,
           exists (select 1 from task_completions tc where tc.user_id = ${userId} and tc.task_id = t.id) as completed
    from quest_tasks t join quest_chains c on c.id = t.chain_id
    where t.id = ${taskId} and c.platform_id = ${platformId}`;
  if (!task) throw invalidInput('task_id: no such task for your platform');
  if (!task.completed) throw conflict('The task is not completed yet; its reward is not claimable');
  return {
    kind: 'task',
    chainId: task.chain_id,
    taskId,
    reward: { type: task.reward_type, name: task.reward_name, value: task.reward_value, image_urls: task.reward_image_urls },
  };
}

async function chainTarget(sql: Sql, platformId: string, userId: string, chainId: string): Promise<ClaimTarget> {
  const [chain] = await sql<
    { reward_id: string | null; type: string | null; name: string | null; value: number | null; image_urls: string[] | null; completed: boolean }[]
  >`
    select r.id as reward_id, r.type, r.name, r.value, r.image_urls, ${chainCompletedBy(sql, userId)} as completed
    from quest_chains c left join chain_rewards r on r.chain_id = c.id
    where c.id = ${chainId} and c.platform_id = ${platformId}`;
  if (!chain) throw invalidInput('quest_chain_id: no such quest chain for your platform');
  if (!chain.reward_id || chain.type === null || chain.name === null) throw conflict('The quest chain has no chain reward');
  if (!chain.completed) throw conflict('The quest chain is not completed yet; its reward is not claimable');
  return {
    kind: 'chain',
    chainId,
    taskId: null,
    reward: { id: chain.reward_id, type: chain.type, name: chain.name, value: chain.value, image_urls: chain.image_urls },
  };
}
