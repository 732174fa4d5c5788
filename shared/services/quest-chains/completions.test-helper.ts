import type { Sql } from '../../db/client.js';

/**
 * Writes what the worker would write for one completed task: the event that
 * completed it and the task_completions row (completed_at = the event's
 * timestamp). Lets read tests set up progress without running the matcher.
 */
export async function storeCompletion(sql: Sql, input: { userId: string; providerId: string; platformUserId: string; taskId: string; chainId: string; at: string }) {
  const [event] = await sql<{ id: string }[]>`
    insert into events (provider_id, user_id, event_type, occurred_at)
    values (${input.providerId}, ${input.platformUserId}, ${`test-${input.taskId}`}, ${input.at}::timestamptz)
    returning id`;
  await sql`
    insert into task_completions (user_id, task_id, chain_id, event_id, completed_at)
    values (${input.userId}, ${input.taskId}, ${input.chainId}, ${event!.id}, ${input.at}::timestamptz)`;
}

export async function storeClaim(sql: Sql, input: { userId: string; chainId: string; taskId: string | null }) {
  await sql`
    insert into reward_claims (user_id, kind, chain_id, task_id, reward)
    values (${input.userId}, ${input.taskId === null ? 'chain' : 'task'}, ${input.chainId}, ${input.taskId}, '{}'::jsonb)`;
}
