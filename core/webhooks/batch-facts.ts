import type { MatchingChain } from '../../shared/db/chain-store.js';
import type { WebhookFact } from '../../shared/db/webhook-message-store.js';
import { taskProgress, taskProgressWire } from '../../shared/domain/chain-view.js';
import type { ServiceUserId } from '../../shared/domain/ids.js';
import { ONLY_RUN } from '../../shared/domain/recurrence.js';
import { type MatchUser, sourcesOf } from '../../shared/domain/sources.js';
import type { StoredTallies } from '../../shared/domain/tally.js';
import { formatIsoMillis } from '../../shared/domain/timestamp.js';
import { walkKey } from '../../shared/domain/walk-key.js';
import type { BatchView, BatchWrites } from '../matching/plan-batch.js';

/** A counted, summed or streak task's progress as it completed (docs/quest-language.md); nothing for a plain task. */
function progressAtCompletion(chain: MatchingChain, taskId: string, tallies: StoredTallies | null, completedUs: bigint) {
  // Only such a task keeps a tally, and the event that completed it was counted into it.
  const tally = tallies?.[taskId];
  if (tally === undefined) return {};
  const condition = chain.rules.tasks.find((t) => t.id === taskId);
  const progress = condition && taskProgress(condition, tally, true, completedUs, chain.rules.timezone ?? 'UTC');
  return progress === undefined ? {} : { progress: taskProgressWire(progress) };
}

/**
 * A fact's name: the first generation of a walk keeps the names facts had
 * before reversals existed, and a chain that does not repeat those it had
 * before runs existed; a run of a repeating chain is named after its start.
 */
const named = (base: string, generation: number, runStartUs: bigint = ONLY_RUN) =>
  `${runStartUs === ONLY_RUN ? base : `${base}@${runStartUs}`}${generation === 0 ? '' : `/${generation}`}`;

/** A repeating chain's facts say which run they are about. */
const runFields = (runStartUs: bigint) => (runStartUs === ONLY_RUN ? {} : { period_start: formatIsoMillis(runStartUs) });

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
      facts.push({
        providerId,
        type,
        fact,
        data: { ...data, [role === 'platform' ? 'platform_user_id' : 'advertiser_user_id']: userId },
      });
    }
  };
  if (recipients.size === 0) return facts;
  const rows = new Map(writes.progress.map((row) => [walkKey(row.userId, row.chainId, row.runStartUs), row]));
  const generationOf = (userId: ServiceUserId, chainId: string, runStart: bigint) =>
    rows.get(walkKey(userId, chainId, runStart))?.generation ??
    view.walks.get(walkKey(userId, chainId, runStart))?.generation ??
    0;
  // When it was undone: the user's progress stamp of this batch (a change always stamps the user).
  const revertedAt = (userId: ServiceUserId, chainId: string, runStart: bigint) => {
    const stamp = rows.get(walkKey(userId, chainId, runStart))?.changedUs;
    return stamp == null ? null : formatIsoMillis(stamp);
  };

  for (const completion of writes.completions) {
    const runStart = completion.runStartUs;
    if (
      completion.held ||
      view.walks.get(walkKey(completion.userId, completion.chainId, runStart))?.completions.has(completion.taskId)
    )
      continue;
    const user = view.users.get(completion.userId);
    const chain = chainsById.get(completion.chainId);
    const task = chain?.tasks.find((t) => t.id === completion.taskId);
    if (!user || !chain || !task) continue;
    announce(
      user,
      chain,
      'task.completed',
      named(`task.completed/${user.id}/${task.id}`, generationOf(user.id, chain.chain.id, runStart), runStart),
      {
        quest_chain_id: chain.chain.id,
        task_id: task.id,
        sequence_number: task.sequenceNumber,
        completed_at: formatIsoMillis(completion.completedUs),
        event_id: completion.eventId,
        ...runFields(runStart),
        ...progressAtCompletion(
          chain,
          task.id,
          rows.get(walkKey(user.id, chain.chain.id, runStart))?.tallies ?? null,
          completion.completedUs,
        ),
      },
    );
  }
  for (const undone of writes.undone) {
    const user = view.users.get(undone.userId);
    const chain = chainsById.get(undone.chainId);
    const task = chain?.tasks.find((t) => t.id === undone.taskId);
    if (!user || !chain || !task) continue;
    const runStart = undone.runStartUs;
    announce(
      user,
      chain,
      'task.reverted',
      `${named(`task.reverted/${user.id}/${task.id}`, 0, runStart)}/${generationOf(user.id, chain.chain.id, runStart)}`,
      {
        quest_chain_id: chain.chain.id,
        task_id: task.id,
        sequence_number: task.sequenceNumber,
        reverted_at: revertedAt(user.id, chain.chain.id, runStart),
        event_id: undone.eventId,
        ...runFields(runStart),
      },
    );
  }
  for (const row of writes.progress) {
    const runStart = row.runStartUs;
    const key = walkKey(row.userId, row.chainId, runStart);
    const stored = view.walks.get(key);
    const user = view.users.get(row.userId);
    const chain = chainsById.get(row.chainId);
    if (!user || !chain) continue;
    if (writes.chainsUndone.has(key)) {
      announce(
        user,
        chain,
        'chain.reverted',
        `${named(`chain.reverted/${user.id}/${chain.chain.id}`, 0, runStart)}/${row.generation}`,
        {
          quest_chain_id: chain.chain.id,
          reverted_at: revertedAt(user.id, chain.chain.id, runStart),
          ...runFields(runStart),
        },
      );
      continue;
    }
    if (row.completedUs === null) continue;
    if (stored !== undefined && stored.completions.size >= row.totalTasks) continue;
    announce(user, chain, 'chain.completed', named(`chain.completed/${user.id}/${chain.chain.id}`, row.generation, runStart), {
      quest_chain_id: chain.chain.id,
      completed_at: formatIsoMillis(row.completedUs),
      ...runFields(runStart),
    });
  }
  return facts;
}
