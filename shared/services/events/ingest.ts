import type { Sql } from '../../db/client.js';
import { pgTimestampToIso } from '../../db/timestamps.js';
import { formatIsoMicros } from '../../domain/timestamp.js';
import type { MatchingProducer } from '../../queue/producer.js';

export interface EventInput {
  user_id: string;
  event_type: string;
  /** Epoch microseconds of the validated `timestamp`. */
  occurredUs: bigint;
  amount?: number | undefined;
  currency?: string | undefined;
  reference?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
}

/** One event and the provider that sent it: a single statement may carry several providers' events (group commit). */
export interface ProviderEvent {
  providerId: string;
  input: EventInput;
}

export interface IngestedEvent {
  eventId: string;
  /** ISO 8601 UTC with milliseconds. */
  receivedAt: string;
  status: 'received' | 'duplicate';
}

interface StoredRow {
  id: string;
  provider_id: string;
  user_id: string;
  event_type: string;
  occurred_us: string;
  /** Postgres text: the driver is configured by drizzle to leave timestamps unparsed. */
  received_at: string;
  fresh: boolean;
  processed: boolean;
}

const dedupKey = (providerId: string, userId: string, eventType: string, occurredUs: bigint | string) =>
  JSON.stringify([providerId, userId, eventType, String(occurredUs)]);

/**
 * Records events for one provider and enqueues them for matching. An event
 * is answered once its row is committed; the enqueue is best effort (the
 * reconciler re-enqueues whatever stays unprocessed). A duplicate of an
 * unprocessed event is enqueued again so a client's retry repairs a lost enqueue.
 * Results come back in input order; repeats inside one call are duplicates of the first.
 */
export function ingestEvents(
  deps: { sql: Sql; producer: MatchingProducer },
  providerId: string,
  inputs: readonly EventInput[],
): Promise<IngestedEvent[]> {
  return ingestProviderEvents(
    deps,
    inputs.map((input) => ({ providerId, input })),
  );
}

/** ingestEvents for events of any providers at once: one statement and one enqueue for all of them. */
export async function ingestProviderEvents(
  deps: { sql: Sql; producer: MatchingProducer },
  events: readonly ProviderEvent[],
): Promise<IngestedEvent[]> {
  if (events.length === 0) return [];
  const keyOf = ({ providerId, input }: ProviderEvent) => dedupKey(providerId, input.user_id, input.event_type, input.occurredUs);
  const unique = new Map<string, ProviderEvent>();
  for (const event of events) {
    const key = keyOf(event);
    if (!unique.has(key)) unique.set(key, event);
  }
  const rows = [...unique.entries()]
    .map(([key, { providerId, input }]) => ({
      key,
      provider_id: providerId,
      user_id: input.user_id,
      event_type: input.event_type,
      occurred_at: formatIsoMicros(input.occurredUs),
      amount: input.amount ?? null,
      currency: input.currency ?? null,
      reference: input.reference ?? null,
      metadata: input.metadata ?? null,
    }))
    // Insert in one global order: two concurrent batches sharing events in
    // different orders would otherwise each wait on the other's uncommitted
    // rows (a deadlock, answered 500). Results are mapped back by key below.
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

  // The event and its pending marker in one statement: the matcher deletes the
  // marker when it has matched the event. The same statement returns the events
  // stored before it (with whether they still wait for the matcher), so a
  // duplicate costs no extra round trip.
  const stored = await deps.sql<StoredRow[]>`
    with input as (
      select r.provider_id::uuid as provider_id, r.user_id, r.event_type, r.occurred_at::timestamptz as occurred_at,
             r.amount, r.currency, r.reference, r.metadata
      from jsonb_to_recordset(${JSON.stringify(rows.map(({ key: _key, ...row }) => row))}::jsonb)
        as r(provider_id text, user_id text, event_type text, occurred_at text, amount float8, currency text, reference text, metadata jsonb)
    ), inserted as (
      insert into events (provider_id, user_id, event_type, occurred_at, amount, currency, reference, metadata)
      select provider_id, user_id, event_type, occurred_at, amount, currency, reference, metadata from input
      on conflict (provider_id, user_id, event_type, occurred_at) do nothing
      returning id, provider_id, user_id, event_type, occurred_at, received_at
    ), marked as (
      insert into pending_events (event_id, provider_id, received_at) select id, provider_id, received_at from inserted
    )
    select id, provider_id, user_id, event_type, (extract(epoch from occurred_at) * 1000000)::bigint::text as occurred_us,
           received_at, true as fresh, false as processed
    from inserted
    union all
    select e.id, e.provider_id, e.user_id, e.event_type, (extract(epoch from e.occurred_at) * 1000000)::bigint::text as occurred_us,
           e.received_at, false as fresh, not exists (select 1 from pending_events p where p.event_id = e.id) as processed
    from input i
    join events e on e.provider_id = i.provider_id and e.user_id = i.user_id and e.event_type = i.event_type and e.occurred_at = i.occurred_at`;

  const found = new Map<string, StoredRow>();
  for (const row of stored) found.set(dedupKey(row.provider_id, row.user_id, row.event_type, row.occurred_us), row);

  const missing = rows.filter((row) => !found.has(row.key));
  if (missing.length > 0) {
    // Lost the insert race to a statement that committed after ours began: read it now (a fresh statement sees that commit).
    const existing = await deps.sql<StoredRow[]>`
      select e.id, e.provider_id, e.user_id, e.event_type, (extract(epoch from e.occurred_at) * 1000000)::bigint::text as occurred_us,
             e.received_at, false as fresh, not exists (select 1 from pending_events p where p.event_id = e.id) as processed
      from events e
      join jsonb_to_recordset(${JSON.stringify(missing.map(({ provider_id, user_id, event_type, occurred_at }) => ({ provider_id, user_id, event_type, occurred_at })))}::jsonb)
        as r(provider_id text, user_id text, event_type text, occurred_at text)
        on e.provider_id = r.provider_id::uuid and e.user_id = r.user_id and e.event_type = r.event_type and e.occurred_at = r.occurred_at::timestamptz`;
    for (const row of existing) found.set(dedupKey(row.provider_id, row.user_id, row.event_type, row.occurred_us), row);
  }

  await deps.producer.enqueueEvents([...found.values()].filter((row) => !row.processed).map((row) => row.id));

  const reported = new Set<string>();
  return events.map((event) => {
    const key = keyOf(event);
    const row = found.get(key);
    if (!row) throw new Error('event neither inserted nor found');
    const first = !reported.has(key);
    reported.add(key);
    return { eventId: row.id, receivedAt: pgTimestampToIso(row.received_at), status: row.fresh && first ? 'received' : 'duplicate' };
  });
}
