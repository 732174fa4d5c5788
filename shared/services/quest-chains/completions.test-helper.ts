import type { Sql } from '../../db/client.js';
import { isChainCompleted } from '../../domain/chain-view.js';

/**
 * Writes what the worker would write for one completed task, in one
 * transaction as the worker does: the event that completed it, the
 * task_completions row (completed_at = the event's timestamp) and the
 * (user, chain) chain_progress summary, whose completed_at is what reward
 * claims read. Lets read tests set up progress without running the matcher.
 * The walk mark stays null: a worker meeting this row recomputes it.
 */
export async function storeCompletion(sql: Sql, input: { userId: string; providerId: string; platformUserId: string; taskId: string; chainId: string; at: string }) {
  await sql.begin(async (tx) => {
    // One writer per user at a time, so concurrent calls cannot write a stale summary.
    await tx`select 1 from users where id = ${input.userId} for update`;
    const [event] = await tx<{ id: string }[]>`
      insert into events (provider_id, user_id, event_type, occurred_at)
      values (${input.providerId}, ${input.platformUserId}, ${`test-${input.taskId}`}, ${input.at}::timestamptz)
      returning id`;
    await tx`
      insert into task_completions (user_id, task_id, chain_id, event_id, completed_at)
      values (${input.userId}, ${input.taskId}, ${input.chainId}, ${event!.id}, ${input.at}::timestamptz)`;
    const [summary] = await tx<{ total: number; done: number; latest: string | null }[]>`
      select (select count(*)::int from quest_tasks where chain_id = ${input.chainId}) as total,
             count(*)::int as done, max(completed_at)::text as latest
      from task_completions where user_id = ${input.userId} and chain_id = ${input.chainId}`;
    const { total, done, latest } = summary!;
    const completedAt = isChainCompleted(total, done) ? latest : null;
    await tx`
      insert into chain_progress (user_id, chain_id, completed_tasks, total_tasks, completed_at)
      values (${input.userId}, ${input.chainId}, ${done}, ${total}, ${completedAt}::timestamptz)
      on conflict (user_id, chain_id) do update
        set completed_tasks = excluded.completed_tasks, total_tasks = excluded.total_tasks,
            completed_at = excluded.completed_at, updated_at = now()`;
  });
}

export async function storeClaim(sql: Sql, input: { userId: string; chainId: string; taskId: string | null }) {
  await sql`
    insert into reward_claims (user_id, kind, chain_id, task_id, reward)
    values (${input.userId}, ${input.taskId === null ? 'chain' : 'task'}, ${input.chainId}, ${input.taskId}, '{}'::jsonb)`;
}
