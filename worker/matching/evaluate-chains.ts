import { sql } from 'drizzle-orm';
import type { Executor } from '../../shared/db/client.js';
import { computeCompletions, type Completion } from '../../shared/domain/progress.js';
import { formatIsoMicros } from '../../shared/domain/timestamp.js';
import { loadPlatformChains, type ChainDefinition } from '../../shared/services/quest-chains/definitions.js';
import { loadCountingEvents, type MatchTarget } from './counting-events.js';

export interface ProgressChange {
  userId: string;
  chainIds: string[];
}

/** Serialises all matching work for one user across transactions, workers and processes. */
export async function lockUser(tx: Executor, userId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`user:${userId}`}, 0))`);
}

/**
 * Recomputes the user's completions in the given chains from every counting
 * event (progress is a pure function of the event set, §5) and stores what
 * differs. Recomputing instead of applying one event makes late, duplicate
 * and replayed events harmless. Must run inside a transaction holding lockUser.
 */
export async function evaluateChains(tx: Executor, target: MatchTarget, chains: readonly ChainDefinition[]): Promise<ProgressChange | null> {
  if (chains.length === 0) return null;
  const eventTypes = [...new Set(chains.flatMap((definition) => definition.tasks.map((task) => task.conditionEventType)))];
  const advertiserIds = [...new Set(chains.map((definition) => definition.chain.advertiserId))];
  const events = await loadCountingEvents(tx, target, eventTypes, advertiserIds);
  const stored = await loadStoredCompletions(tx, target.userId, chains.map((definition) => definition.chain.id));

  const changedChains: string[] = [];
  const writes: { chainId: string; completion: Completion }[] = [];
  const summaries: { chainId: string; completed: number; total: number; completedAt: string | null }[] = [];
  for (const definition of chains) {
    const counting = events.filter((event) => event.providerId === target.platformId || event.providerId === definition.chain.advertiserId);
    const completions = computeCompletions(definition.rules, counting);
    let changed = false;
    for (const completion of completions.values()) {
      if (stored.get(completion.taskId) !== completion.eventId) {
        writes.push({ chainId: definition.chain.id, completion });
        changed = true;
      }
    }
    if (!changed) continue;
    changedChains.push(definition.chain.id);
    const all = [...completions.values()];
    const complete = all.length === definition.tasks.length;
    const latest = all.reduce((max, completion) => (completion.completedUs > max ? completion.completedUs : max), 0n);
    summaries.push({
      chainId: definition.chain.id,
      completed: all.length,
      total: definition.tasks.length,
      completedAt: complete ? formatIsoMicros(latest) : null,
    });
  }
  if (writes.length === 0) return null;

  await storeCompletions(tx, target.userId, writes);
  await storeSummaries(tx, target.userId, summaries);
  await tx.execute(sql`update users set progress_changed_at = now() where id = ${target.userId}`);
  return { userId: target.userId, chainIds: changedChains };
}

/** The chains of the user's platform to match, loaded inside the transaction so a chain created meanwhile is seen. */
export const chainsForTarget = (tx: Executor, target: MatchTarget, advertiserId?: string) =>
  loadPlatformChains(tx, target.platformId, advertiserId);

async function loadStoredCompletions(tx: Executor, userId: string, chainIds: string[]): Promise<Map<string, string>> {
  const ids = sql.join(chainIds.map((id) => sql`${id}::uuid`), sql`, `);
  const rows = await tx.execute<{ task_id: string; event_id: string }>(
    sql`select task_id, event_id from task_completions where user_id = ${userId} and chain_id in (${ids})`,
  );
  return new Map(rows.map((row) => [row.task_id, row.event_id]));
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
