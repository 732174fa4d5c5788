import { sql } from 'drizzle-orm';
import type { Executor } from '../../shared/db/client.js';
import type { CountingEvent } from '../../shared/domain/conditions.js';

export interface MatchTarget {
  userId: string;
  platformId: string;
  platformUserId: string;
}

/** A counting event and who sent it: platform events count for every chain, an advertiser's only for its own chains. */
export interface SourcedEvent extends CountingEvent {
  providerId: string;
}

interface EventRow extends Record<string, unknown> {
  id: string;
  provider_id: string;
  event_type: string;
  occurred_us: string;
  amount: number | null;
  currency: string | null;
}

/**
 * The user's events that can matter to the given chains (product rules §4):
 * the platform's events for its user id, plus each linked advertiser's events
 * for the linked advertiser user id. Narrowed to the event types the tasks
 * name; both halves are served by the events dedup index.
 */
export async function loadCountingEvents(
  tx: Executor,
  target: MatchTarget,
  eventTypes: readonly string[],
  advertiserIds: readonly string[],
): Promise<SourcedEvent[]> {
  if (eventTypes.length === 0) return [];
  const types = sql`(${sql.join(eventTypes.map((type) => sql`${type}`), sql`, `)})`;
  const advertisers = advertiserIds.length > 0 ? sql`(${sql.join(advertiserIds.map((id) => sql`${id}::uuid`), sql`, `)})` : null;
  const occurredUs = sql`(extract(epoch from e.occurred_at) * 1000000)::bigint::text`;
  const rows = await tx.execute<EventRow>(sql`
    select e.id, e.provider_id, e.event_type, ${occurredUs} as occurred_us, e.amount, e.currency
    from events e
    where e.provider_id = ${target.platformId} and e.user_id = ${target.platformUserId} and e.event_type in ${types}
    ${
      advertisers
        ? sql`union all
    select e.id, e.provider_id, e.event_type, ${occurredUs} as occurred_us, e.amount, e.currency
    from account_links l
    join events e on e.provider_id = l.advertiser_id and e.user_id = l.advertiser_user_id
    where l.user_id = ${target.userId} and l.advertiser_id in ${advertisers} and e.event_type in ${types}`
        : sql``
    }`);
  return rows.map((row) => ({
    id: row.id,
    providerId: row.provider_id,
    eventType: row.event_type,
    occurredUs: BigInt(row.occurred_us),
    amount: row.amount,
    currency: row.currency,
  }));
}
