import {
  listClaimableChainRewards,
  listClaimableTaskRewards,
  listClaims,
  type ClaimableChainReward,
  type ClaimableTaskReward,
  type RewardClaim,
} from '../../../shared/db/reward-store.js';
import { findUserId } from '../../../shared/db/user-store.js';
import type { AppDeps } from '../../app-env.js';

export interface RewardsOverview {
  claimableTasks: ClaimableTaskReward[];
  claimableChains: ClaimableChainReward[];
  claimed: RewardClaim[];
}

const EMPTY: RewardsOverview = { claimableTasks: [], claimableChains: [], claimed: [] };

/**
 * Product rules §7: what a user may still claim and what they claimed, over
 * chains of every status (earned is earned). Four queries whatever the
 * number of chains; an unknown user, or another platform's, has nothing.
 */
export async function listRewards(deps: Pick<AppDeps, 'db'>, input: { platformId: string; platformUserId: string }): Promise<RewardsOverview> {
  const { db } = deps;
  const userId = await findUserId(db, input.platformId, input.platformUserId);
  if (!userId) return EMPTY;
  const [claimableTasks, claimableChains, claimed] = await Promise.all([
    listClaimableTaskRewards(db, userId),
    listClaimableChainRewards(db, input.platformId, userId),
    listClaims(db, userId),
  ]);
  return { claimableTasks, claimableChains, claimed };
}
