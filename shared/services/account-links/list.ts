import type { Sql } from '../../db/client.js';
import { pgTimestampToMicros } from '../../db/timestamps.js';

export interface AccountLinkView {
  linkId: string;
  advertiserId: string;
  advertiserUserId: string;
  linkedUs: bigint;
}

/**
 * The links of one of the calling platform's users, oldest first. An unknown
 * user, or one of another platform, has no links here (no leak).
 */
export async function listAccountLinks(deps: { sql: Sql }, platformId: string, platformUserId: string): Promise<AccountLinkView[]> {
  const rows = await deps.sql<{ id: string; advertiser_id: string; advertiser_user_id: string; linked_at: string }[]>`
    select l.id, l.advertiser_id, l.advertiser_user_id, l.linked_at
    from account_links l
    join users u on u.id = l.user_id
    where u.platform_id = ${platformId} and u.platform_user_id = ${platformUserId} and l.platform_id = ${platformId}
    order by l.linked_at, l.id`;
  return rows.map((row) => ({
    linkId: row.id,
    advertiserId: row.advertiser_id,
    advertiserUserId: row.advertiser_user_id,
    linkedUs: pgTimestampToMicros(row.linked_at),
  }));
}
