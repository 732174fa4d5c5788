import { sql } from 'drizzle-orm';
import type { Executor } from '../../shared/db/client.js';
import { pgTimestampToMicros } from '../../shared/db/timestamps.js';
import { applyLatestEvent, computeCompletions, type Completion } from '../../shared/domain/progress.js';
import { formatIsoMicros } from '../../shared/domain/timestamp.js';
import { loadPlatformChains, type ChainDefinition } from '../../shared/services/quest-chains/definitions.js';
import { laterCountingEventExists, loadCountingEvents, type MatchTarget, type SourcedEvent } from './counting-events.js';

export interface ProgressChange {
  userId: string;
  chainIds: string[];
}

/** Serialises all matching work for one user across transactions, workers and processes. */
export async function lockUser(tx: Executor, userId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`user:${userId}`}, 0))`);
}

/**
 * Brings the user's stored completions in the given chains up to date and
 * stores what differs. Progress is a pure function of the event set (§5), so
 * the general path recomputes from every counting event, which makes late,
 * duplicate and replayed events harmless. When `latest` (the event being
 * processed) is the last counting event in walk order, the stored state is
 * already the result of every event before it, and applying it alone is
 * exact: the common in-order case then costs O(tasks), not O(history).
 * Must run inside a transaction holding lockUser.
 */
export async function evaluateChains(
  tx: Executor,
  target: MatchTarget,
  chains: readonly ChainDefinition[],
  latest?: SourcedEvent,
): Promise<ProgressChange | null> {
  if (chains.length === 0) return null;
  const eventTypes = [...new Set(chains.flatMap((definition) => definition.tasks.map((task) => task.conditionEventType)))];
  const advertiserIds = [...new Set(chains.map((definition) => definition.chain.advertiserId))];
  const stored = await loadStoredCompletions(tx, target.userId, chains.map((definition) => definition.chain.id));
  const onlyLatest = latest !== undefined && !(await laterCountingEventExists(tx, target, eventTypes, advertiserIds, latest));
  const events = onlyLatest ? [] : await loadCountingEvents(tx, target, eventTypes, advertiserIds);

  const changedChains: string[] = [];
  const writes: { chainId: string; completion: Completion }[] = [];
  const summaries: { chainId: string; completed: number; total: number; completedAt: string | null }[] = [];
  for (const definition of chains) {
    const counts = (event: SourcedEvent) => event.providerId === target.platformId || event.providerId === definition.chain.advertiserId;
    const completions = onlyLatest
      ? withLatest(definition, stored, counts(latest!) ? latest! : null)
      : computeCompletions(definition.rules, events.filter(counts));
    let changed = false;
    for (const completion of completions.values()) {
      if (stored.get(completion.taskId)?.eventId !== completion.eventId) {
        writes.push({ chainId: definition.chain.id, completion });
        changed = true;
      }
    }
    if (!changed) continue;
    changedChains.push(definition.chain.id);
    const all = [...completions.values()];
    const latestUs = all.reduce((max, completion) => (completion.completedUs > max ? completion.completedUs : max), all[0]!.completedUs);
    summaries.push({
      chainId: definition.chain.id,
      completed: all.length,
      total: definition.tasks.length,
      completedAt: all.length === definition.tasks.length ? formatIsoMicros(latestUs) : null,
    });
  }
  if (writes.length === 0) return null;

  await storeCompletions(tx, target.userId, writes);
  await storeSummaries(tx, target.userId, summaries);
  await tx.execute(sql`update users set progress_changed_at = now() where id = ${target.userId}`);
  return { userId: target.userId, chainIds: changedChains };
}

/** The chain's stored completions plus what `latest` (null: an event that does not count here) adds. */
function withLatest(definition: ChainDefinition, stored: ReadonlyMap<string, Completion>, latest: SourcedEvent | null): Map<string, Completion> {
  const completions = new Map<string, Completion>();
  for (const task of definition.tasks) {
    const completion = stored.get(task.id);
    if (completion) completions.set(task.id, completion);
  }
  const added = latest ? applyLatestEvent(definition.rules, completions, latest) : null;
  if (added) completions.set(added.taskId, added);
  return completions;
}

/** The chains of the user's platform to match, loaded inside the transaction so a chain created meanwhile is seen. */
export const chainsForTarget = (tx: Executor, target: MatchTarget, advertiserId?: string) =>
  loadPlatformChains(tx, target.platformId, advertiserId);

async function loadStoredCompletions(tx: Executor, userId: string, chainIds: string[]): Promise<Map<string, Completion>> {
  const ids = sql.join(chainIds.map((id) => sql`${id}::uuid`), sql`, `);
  const rows = await tx.execute<{ task_id: string; event_id: string; completed_at: string }>(sql`
    select task_id, event_id, completed_at::text as completed_at
    from task_completions where user_id = ${userId} and chain_id in (${ids})`);
  return new Map(
    rows.map((row) => [row.task_id, { taskId: row.task_id, eventId: row.event_id, completedUs: pgTimestampToMicros(row.completed_at) }]),
  );
}

async function storeCompletions(tx: Executor, userId: string, writes: { chainId: string; completion: Completion }[]) {
  const rows = writes.map(({ chainId, completion }) => ({
    task_id: completion.taskId,
    chain_id: chainId,
    event_id: completion.eventId,
    completed_at: formatIsoMicros(completion.completedUs),
  }));
  // A completion may move to an earlier event when a late event with an older timestamp arrives (§5); never deleted.
  await tx.execute(sql`
    insert into task_completions (user_id, task_id, chain_id, event_id, completed_at)
    select ${userId}, r.task_id, r.chain_id, r.event_id, r.completed_at::timestamptz
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(task_id uuid, chain_id uuid, event_id uuid, completed_at text)
    on conflict (user_id, task_id) do update
      set event_id = excluded.event_id, completed_at = excluded.completed_at, recorded_at = now()`);
}

async function storeSummaries(
  tx: Executor,
  userId: string,
  summaries: { chainId: string; completed: number; total: number; completedAt: string | null }[],
) {
  const rows = summaries.map((summary) => ({
    chain_id: summary.chainId,
    completed_tasks: summary.completed,
    total_tasks: summary.total,
    completed_at: summary.completedAt,
  }));
  await tx.execute(sql`
    insert into chain_progress (user_id, chain_id, completed_tasks, total_tasks, completed_at, updated_at)
    select ${userId}, r.chain_id, r.completed_tasks, r.total_tasks, r.completed_at::timestamptz, now()
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(chain_id uuid, completed_tasks int, total_tasks int, completed_at text)
    on conflict (user_id, chain_id) do update
      set completed_tasks = excluded.completed_tasks, total_tasks = excluded.total_tasks,
          completed_at = excluded.completed_at, updated_at = now()`);
}
