import { sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import { pendingEvents } from './schema/index.js';
import { idArray, instant, occurredUsColumn, textArray } from './sql-fragments.js';

/** A stored event as the matcher needs it: who sent it about whom, and what it says. */
export interface StoredEvent {
  id: string;
  providerId: string;
  /** The sender's own user id (a platform user id, or an advertiser user id). */
  userId: string;
  eventType: string;
  occurredUs: bigint;
  amount: number | null;
  currency: string | null;
}

export interface PendingEvent extends StoredEvent {
  receivedUs: bigint;
}

interface EventRow extends Record<string, unknown> {
  id: string;
  provider_id: string;
  user_id: string;
  event_type: string;
  occurred_us: string;
  amount: number | null;
  currency: string | null;
}

const toStoredEvent = (row: EventRow): StoredEvent => ({
  id: row.id,
  providerId: row.provider_id,
  userId: row.user_id,
  eventType: row.event_type,
  occurredUs: BigInt(row.occurred_us),
  amount: row.amount,
  currency: row.currency,
});

/**
 * Claims the still-pending events among `ids` for this transaction. Rows
 * another batch holds are skipped, not waited for: that batch's jobs carry
 * those ids too and are retried if it fails. Ids no longer pending (matched
 * already) are simply absent from the answer.
 */
export async function claimPendingEvents(tx: Executor, ids: readonly string[]): Promise<PendingEvent[]> {
  if (ids.length === 0) return [];
  const rows = await tx.execute<EventRow & { received_us: string }>(sql`
    with claimed as (
      select event_id, (extract(epoch from received_at) * 1000000)::bigint::text as received_us
      from pending_events where event_id = any(${idArray(ids)})
      order by event_id
      for update skip locked
    )
    select e.id, e.provider_id, e.user_id, e.event_type, ${occurredUsColumn(sql`e.occurred_at`)} as occurred_us,
           e.amount, e.currency, c.received_us
    from claimed c join events e on e.id = c.event_id`);
  return rows.map((row) => ({ ...toStoredEvent(row), receivedUs: BigInt(row.received_us) }));
}

/** Marks events matched: their pending rows go, in one statement. */
export async function deletePending(tx: Executor, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.delete(pendingEvents).where(sql`${pendingEvents.eventId} = any(${idArray(ids)})`);
}

/** Whose history to read: a sender and the user id it used, limited to some event types and a time window. */
export interface HistorySource {
  providerId: string;
  userId: string;
}

/**
 * Every stored event of the given sources whose type is one of `eventTypes`
 * and whose timestamp lies in [fromUs, untilUs): what a recompute walks. Each
 * source is served by the dedup index (provider_id, user_id, event_type, occurred_at).
 */
export async function loadHistory(
  tx: Executor,
  sources: readonly HistorySource[],
  eventTypes: readonly string[],
  window: { fromUs: bigint; untilUs: bigint },
): Promise<StoredEvent[]> {
  if (sources.length === 0 || eventTypes.length === 0) return [];
  const rows = await tx.execute<EventRow>(sql`
    select e.id, e.provider_id, e.user_id, e.event_type, ${occurredUsColumn(sql`e.occurred_at`)} as occurred_us, e.amount, e.currency
    from unnest(${idArray(sources.map((s) => s.providerId))}, ${textArray(sources.map((s) => s.userId))}) as s(provider_id, user_id)
    join events e on e.provider_id = s.provider_id and e.user_id = s.user_id
    where e.event_type = any(${textArray(eventTypes)})
      and e.occurred_at >= ${instant(window.fromUs)} and e.occurred_at < ${instant(window.untilUs)}`);
  return rows.map(toStoredEvent);
}
