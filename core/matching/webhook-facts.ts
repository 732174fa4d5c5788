import type { ChainDefinition } from '../../shared/db/chain-store.js';
import type { WebhookFact } from '../../shared/db/webhook-message-store.js';
import { sourcesOf, type MatchUser } from '../../shared/domain/sources.js';
import { formatIsoMillis } from '../../shared/domain/timestamp.js';
import { walkKey, type BatchView, type BatchWrites } from './plan-batch.js';

/**
 * The facts a batch announces (product rules §10), decided in memory from
 * what the batch loaded under its users' locks: a task completion that was
 * not stored before (a completion moved to an earlier event by a late one is
 * not news), and a chain whose stored walk was not complete and now is. Each
 * goes to the sources of the user's events in that chain (§4, sourcesOf):
 * the user's platform (as its platform_user_id) and, when the user is linked
 * to the chain's advertiser, that advertiser (as its advertiser_user_id
 * only). `recipients`: the providers with a live endpoint, as the batch read
 * them with its chains (null: announce to all); facts for nobody are not
 * built at all.
 */
export function batchFacts(
  view: BatchView,
  writes: BatchWrites,
  chainsById: ReadonlyMap<string, ChainDefinition>,
  recipients: ReadonlySet<string> | null,
): WebhookFact[] {
  const facts: WebhookFact[] = [];
  const announce = (user: MatchUser, chain: ChainDefinition, type: string, fact: string, data: Record<string, unknown>) => {
    for (const { providerId, userId, role } of sourcesOf(user, chain.chain)) {
      if (recipients !== null && !recipients.has(providerId)) continue;
      facts.push({ providerId, type, fact, data: { ...data, [role === 'platform' ? 'platform_user_id' : 'advertiser_user_id']: userId } });
    }
  };
  if (recipients !== null && recipients.size === 0) return facts;

  for (const completion of writes.completions) {
    if (view.walks.get(walkKey(completion.userId, completion.chainId))?.completions.has(completion.taskId)) continue;
    const user = view.users.get(completion.userId);
    const chain = chainsById.get(completion.chainId);
    const task = chain?.tasks.find((t) => t.id === completion.taskId);
    if (!user || !chain || !task) continue;
    announce(user, chain, 'task.completed', `task.completed/${user.id}/${task.id}`, {
      quest_chain_id: chain.chain.id,
      task_id: task.id,
      sequence_number: task.sequenceNumber,
      completed_at: formatIsoMillis(completion.completedUs),
      event_id: completion.eventId,
    });
  }
  for (const row of writes.progress) {
    if (row.completedUs === null) continue;
    const stored = view.walks.get(walkKey(row.userId, row.chainId));
    if (stored !== undefined && stored.completions.size >= row.totalTasks) continue;
    const user = view.users.get(row.userId);
    const chain = chainsById.get(row.chainId);
    if (!user || !chain) continue;
    announce(user, chain, 'chain.completed', `chain.completed/${user.id}/${chain.chain.id}`, {
      quest_chain_id: chain.chain.id,
      completed_at: formatIsoMillis(row.completedUs),
    });
  }
  return facts;
}
