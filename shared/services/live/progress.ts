import type { Sql } from '../../db/client.js';
import { pgTimestampToMicros } from '../../db/timestamps.js';
import { formatIsoMicros, formatIsoMillis } from '../../domain/timestamp.js';
import type { ProgressMessage } from '../../live/channel.js';

/**
 * The catch-up message for a stream that opens late: the user's latest
 * progress change if it is after `sinceUs` (null: any recorded change), with
 * the chains whose progress was rewritten since then. Null when nothing changed.
 */
export async function progressChangedSince(sql: Sql, userId: string, sinceUs: bigint | null): Promise<ProgressMessage | null> {
  const since = sinceUs === null ? null : formatIsoMicros(sinceUs);
  const [row] = await sql<{ changed_at: string | null; chain_ids: string[] }[]>`
    select u.progress_changed_at::text as changed_at,
           coalesce(
             (select array_agg(cp.chain_id::text order by cp.chain_id)
              from chain_progress cp
              where cp.user_id = u.id and (${since}::timestamptz is null or cp.updated_at > ${since}::timestamptz)),
             '{}'::text[]) as chain_ids
    from users u where u.id = ${userId}`;
  if (!row?.changed_at) return null;
  const changedUs = pgTimestampToMicros(row.changed_at);
  if (sinceUs !== null && changedUs <= sinceUs) return null;
  return { quest_chain_ids: row.chain_ids, changed_at: formatIsoMillis(changedUs) };
}
