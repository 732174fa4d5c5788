import { findAdmissions, insertAdmissions, takePlaces } from '../../shared/db/admission-store.js';
import type { MatchingChain } from '../../shared/db/chain-store.js';
import type { Executor } from '../../shared/db/client.js';
import { admitsNoOneNew } from '../../shared/domain/admission.js';
import type { WalkState } from '../../shared/domain/walk.js';
import { parseWalkKey, walkKey } from '../../shared/domain/walk-key.js';
import { admissionCandidates, type BatchView, chooseAdmitted } from './plan-batch.js';

/**
 * max_completions (docs/budgets.md, "Completion caps"): before a batch writes
 * its walks, each user about to make a first completion in a capped chain
 * takes a place, unless they hold one already; those left without one are
 * not admitted, and their walks of that chain are dropped from `states`
 * (nothing is written for them: the chain does not count their events).
 * No statement at all unless a capped chain has a candidate.
 */
export async function admitNewUsers(
  tx: Executor,
  view: BatchView,
  states: Map<string, WalkState>,
  chainsById: ReadonlyMap<string, MatchingChain>,
): Promise<void> {
  const candidates = admissionCandidates(view, states, chainsById);
  if (candidates.length === 0) return;
  const placed = await findAdmissions(tx, candidates);
  const waiting = candidates.filter((c) => !placed.has(walkKey(c.userId, c.chainId)));
  const needs = new Map<string, number>();
  for (const { chainId } of waiting) {
    // Full as loaded is full for good (places are never given back): no lock to take.
    if (!admitsNoOneNew(chainsById.get(chainId)!.chain)) needs.set(chainId, (needs.get(chainId) ?? 0) + 1);
  }
  const admitted = chooseAdmitted(waiting, await takePlaces(tx, needs));
  await insertAdmissions(tx, admitted);
  const admittedKeys = new Set(admitted.map((a) => walkKey(a.userId, a.chainId)));
  const shutOut = new Set(waiting.map((c) => walkKey(c.userId, c.chainId)).filter((key) => !admittedKeys.has(key)));
  if (shutOut.size === 0) return;
  // Every run of the chain: a user without a place counts in none of them.
  for (const key of [...states.keys()]) {
    const [userId, chainId] = parseWalkKey(key);
    if (shutOut.has(walkKey(userId, chainId))) states.delete(key);
  }
}
