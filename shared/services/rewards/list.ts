import type { Sql } from '../../db/client.js';
import { findUserId } from '../users/find.js';
import { pgTimestampToMicros } from '../../db/timestamps.js';
import { toClaimed, type ClaimedReward, type ClaimRow } from './claim.js';
import { chainCompletedBy, type RewardView } from './reward.js';

export interface ClaimableTaskReward {
  taskId: string;
  chainId: string;
  sequenceNumber: number;
  reward: RewardView;
  completedUs: bigint;
}

export interface ClaimableChainReward {
  chainId: string;
  reward: RewardView;
}

export interface RewardsOverview {
  claimableTasks: ClaimableTaskReward[];
  claimableChains: ClaimableChainReward[];
  claimed: ClaimedReward[];
}

const EMPTY: RewardsOverview = { claimableTasks: [], claimableChains: [], claimed: [] };

/**
 * Product rules §7: what a user may still claim and what they claimed, over
 * chains of every status (earned is earned). Four queries whatever the
 * number of chains; an unknown user, or another platform's, has nothing.
 */
export async function listRewards(deps: { sql: Sql }, platformId: string, platformUserId: string): Promise<RewardsOverview> {
  const { sql } = deps;
  const userId = await findUserId(sql, platformId, platformUserId);
  if (!userId) return EMPTY;

  const [tasks, chains, claims] = await Promise.all([
    sql<
      {
        task_id: string;
        chain_id: string;
        sequence_number: number;
        reward_type: string;
        reward_name: string;
        reward_value: number;
        reward_image_urls: string[] | null;
        completed_at: string;
      }[]
    >`
      select tc.task_id, tc.chain_id, t.sequence_number, t.reward_type, t.reward_name, t.reward_value, t.reward_image_urls,
             tc.completed_at::text as completed_at
      from task_completions tc join quest_tasks t on t.id = tc.task_id
      where tc.user_id = ${userId}
        and not exists (select 1 from reward_claims rc where rc.user_id = ${userId} and rc.task_id = tc.task_id)
      order by tc.completed_at, tc.chain_id, t.sequence_number`,
    sql<{ chain_id: string; id: string; type: string; name: string; value: number | null; image_urls: string[] | null }[]>`
      select c.id as chain_id, r.id, r.type, r.name, r.value, r.image_urls
      from quest_chains c join chain_rewards r on r.chain_id = c.id
      where c.platform_id = ${platformId}
        and c.id in (select tc.chain_id from task_completions tc where tc.user_id = ${userId})
        and ${chainCompletedBy(sql, userId)}
        and not exists (select 1 from reward_claims rc where rc.user_id = ${userId} and rc.chain_id = c.id and rc.task_id is null)
      order by c.start_date, c.id`,
    sql<ClaimRow[]>`
      select id, kind, chain_id, task_id, reward, claimed_at from reward_claims
      where user_id = ${userId}
      order by claimed_at, id`,
  ]);

  return {
    claimableTasks: tasks.map((row) => ({
      taskId: row.task_id,
      chainId: row.chain_id,
      sequenceNumber: row.sequence_number,
      reward: { type: row.reward_type, name: row.reward_name, value: row.reward_value, image_urls: row.reward_image_urls },
      completedUs: pgTimestampToMicros(row.completed_at),
    })),
    claimableChains: chains.map((row) => ({
      chainId: row.chain_id,
      reward: { id: row.id, type: row.type, name: row.name, value: row.value, image_urls: row.image_urls },
    })),
    claimed: claims.map(toClaimed),
  };
}
