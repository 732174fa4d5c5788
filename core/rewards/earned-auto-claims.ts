import type { EarnedAutoClaim } from '../../shared/db/auto-claim-store.js';
import type { MatchingChain } from '../../shared/db/chain-store.js';
import { claimableAfterHold } from '../../shared/domain/reward-hold.js';
import { walkKey } from '../../shared/domain/walk-key.js';
import type { BatchView, BatchWrites } from '../matching/plan-batch.js';

/**
 * The rewards a batch earned in chains with `auto_claim` (product rules
 * §18.5): a task completion not stored before (one kept only by its claim's
 * hold is not a completion) and a run of a chain whose stored walk was not
 * complete and now is, the same news that batch-facts.ts announces. Each is
 * due at its completion plus the chain's reward hold (§13.5). Pure: the
 * matcher stores them in its transaction (insertAutoClaims) and the worker
 * claims them (auto-claim.ts).
 */
export function earnedAutoClaims(
  view: BatchView,
  writes: BatchWrites,
  chainsById: ReadonlyMap<string, MatchingChain>,
): EarnedAutoClaim[] {
  const earned: EarnedAutoClaim[] = [];
  const autoClaiming = (chainId: string) => {
    const chain = chainsById.get(chainId)?.chain;
    return chain?.autoClaim ? chain : undefined;
  };
  for (const completion of writes.completions) {
    const chain = autoClaiming(completion.chainId);
    if (!chain || completion.held) continue;
    const stored = view.walks.get(walkKey(completion.userId, completion.chainId, completion.runStartUs));
    if (stored?.completions.has(completion.taskId)) continue;
    earned.push({
      userId: completion.userId,
      chainId: completion.chainId,
      taskId: completion.taskId,
      runStartUs: completion.runStartUs,
      dueUs: claimableAfterHold(completion.completedUs, chain.rewardHoldSeconds),
    });
  }
  for (const row of writes.progress) {
    const chain = autoClaiming(row.chainId);
    if (!chain || row.completedUs === null) continue;
    const key = walkKey(row.userId, row.chainId, row.runStartUs);
    if (writes.chainsUndone.has(key)) continue;
    const stored = view.walks.get(key);
    if (stored !== undefined && stored.completions.size >= row.totalTasks) continue;
    earned.push({
      userId: row.userId,
      chainId: row.chainId,
      taskId: null,
      runStartUs: row.runStartUs,
      dueUs: claimableAfterHold(row.completedUs, chain.rewardHoldSeconds),
    });
  }
  return earned;
}
