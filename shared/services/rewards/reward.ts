import type { Sql } from '../../db/client.js';

/**
 * A reward as shown to clients and as snapshotted into reward_claims.reward
 * (the snapshot keeps a granted reward stable if the definition changes).
 * Chain rewards carry their chain_rewards id; task rewards are identified by the task.
 */
export interface RewardView {
  id?: string;
  type: string;
  name: string;
  value: number | null;
  image_urls: string[] | null;
}

export type RewardKind = 'task' | 'chain';

/**
 * SQL condition "user U completed chain `c`" (`c` = quest_chains alias): the
 * matcher's summary says so. The matcher writes chain_progress in the same
 * transaction as the task completions it summarises, with completed_at set by
 * the domain's isChainCompleted, so this is the one definition, not a second
 * reading of the completions.
 */
export function chainCompletedBy(sql: Sql, userId: string) {
  return sql`exists (
    select 1 from chain_progress cp where cp.user_id = ${userId} and cp.chain_id = c.id and cp.completed_at is not null
  )`;
}
