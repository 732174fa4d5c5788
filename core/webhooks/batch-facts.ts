import type { ServiceUserId } from '../../shared/domain/ids.js';
import type { MatchingChain } from '../../shared/db/chain-store.js';
import type { WebhookFact } from '../../shared/db/webhook-message-store.js';
import { sourcesOf, type MatchUser } from '../../shared/domain/sources.js';
import { formatIsoMillis } from '../../shared/domain/timestamp.js';
import type { BatchView, BatchWrites } from '../matching/plan-batch.js';
import { walkKey } from '../../shared/domain/walk-key.js';

/** A fact's name: the first generation of a walk keeps the names facts had before reversals existed. */
const named = (base: string, generation: number) => (generation === 0 ? base : `${base}/${generation}`);

/**
 * The facts a batch announces (product rules §10, docs/reversals.md),
 * decided in memory from what the batch loaded under its users' locks: a task
 * completion that was not stored before (a completion moved to another event
 * is not news; one kept only by its claim's hold is not a completion), a
 * completion undone (task.reverted), and a chain whose stored walk was not
 * complete and now is (chain.completed), or was and is not (chain.reverted).
 * Each goes to the sources of the user's events in that chain (§4,
 * sourcesOf): the user's platform (as its platform_user_id) and, when the
 * user is linked to the chain's advertiser, that advertiser (as its
 * advertiser_user_id only). Facts are named with the walk's generation
 * (plan-batch.ts, diffWalks), so a task completed again after a reversal is
 * announced again, and each once. `recipients`: the providers with a live
 * endpoint, as the batch read them after its last event read (match-batch.ts);
 * facts for nobody are not built at all.
 */
export function batchFacts(
  view: BatchView,
  writes: BatchWrites,
  chainsById: ReadonlyMap<string, MatchingChain>,
  recipients: ReadonlySet<string>,
): WebhookFact[] {
  const facts: WebhookFact[] = [];
  const announce = (user: MatchUser, chain: MatchingChain, type: string, fact: string, data: Record<string, unknown>) => {
    for (const { providerId, userId, role } of sourcesOf(user, chain.chain)) {
      if (!recipients.has(providerId)) continue;
      facts.push({ providerId, type, fact, data: { ...data, [role === 'platform' ? 'platform_user_id' : 'advertiser_user_id']: userId } });
    }
  };
  if (recipients.size === 0) return facts;
  const rows = new Map(writes.progress.map((row) => [walkKey(row.userId, row.chainId), row]));
  const generationOf = (userId: ServiceUserId, chainId: string) => rows.get(walkKey(userId, chainId))?.generation ?? view.walks.get(walkKey(userId, chainId))?.generation ?? 0;
  // When it was undone: the user's progress stamp of this batch (a change always stamps the user).
  const revertedAt = (userId: ServiceUserId, chainId: string) => {
    const stamp = rows.get(walkKey(userId, chainId))?.changedUs;
    return stamp == null ? null : formatIsoMillis(stamp);
  };

  for (const completion of writes.completions) {
    if (completion.held || view.walks.get(walkKey(completion.userId, completion.chainId))?.completions.has(completion.taskId)) continue;
    const user = view.users.get(completion.userId);
    const chain = chainsById.get(completion.chainId);
    const task = chain?.tasks.find((t) => t.id === completion.taskId);
    if (!user || !chain || !task) continue;
    announce(user, chain, 'task.completed', named(`task.completed/${user.id}/${task.id}`, generationOf(user.id, chain.chain.id)), {
      quest_chain_id: chain.chain.id,
      task_id: task.id,
      sequence_number: task.sequenceNumber,
      completed_at: formatIsoMillis(completion.completedUs),
      event_id: completion.eventId,
    });
  }
  for (const undone of writes.undone) {
    const user = view.users.get(undone.userId);
    const chain = chainsById.get(undone.chainId);
    const task = chain?.tasks.find((t) => t.id === undone.taskId);
    if (!user || !chain || !task) continue;
    announce(user, chain, 'task.reverted', `task.reverted/${user.id}/${task.id}/${generationOf(user.id, chain.chain.id)}`, {
      quest_chain_id: chain.chain.id,
      task_id: task.id,
      sequence_number: task.sequenceNumber,
      reverted_at: revertedAt(user.id, chain.chain.id),
      event_id: undone.eventId,
    });
  }
  for (const row of writes.progress) {
    const key = walkKey(row.userId, row.chainId);
    const stored = view.walks.get(key);
    const user = view.users.get(row.userId);
    const chain = chainsById.get(row.chainId);
    if (!user || !chain) continue;
    if (writes.chainsUndone.has(key)) {
      announce(user, chain, 'chain.reverted', `chain.reverted/${user.id}/${chain.chain.id}/${row.generation}`, { quest_chain_id: chain.chain.id, reverted_at: revertedAt(user.id, chain.chain.id) });
      continue;
    }
    if (row.completedUs === null) continue;
    if (stored !== undefined && stored.completions.size >= row.totalTasks) continue;
    announce(user, chain, 'chain.completed', named(`chain.completed/${user.id}/${chain.chain.id}`, row.generation), {
      quest_chain_id: chain.chain.id,
      completed_at: formatIsoMillis(row.completedUs),
    });
  }
  return facts;
}
