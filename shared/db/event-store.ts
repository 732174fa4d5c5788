import { asc, count, type SQL, sql } from 'drizzle-orm';
import type { SenderUserId } from '../domain/ids.js';
import type { EventSource } from '../domain/sources.js';
import { formatIsoMicros } from '../domain/timestamp.js';
import type { Executor } from './client.js';
import { type DriverRow, decodeTimestampUs } from './driver-row.js';
import { events, pendingEvents } from './schema/index.js';
import { senderLockKey } from './sender-locks.js';
import { fromUs, idArray, instant, numberArray, occurredUsColumn, textArray } from './sql-fragments.js';

type EventColumns = typeof events.$inferSelect;

/** A stored event as the matcher needs it: who sent it about whom, and what it says. */
export type StoredEvent = Pick<EventColumns, 'id' | 'providerId' | 'userId' | 'eventType' | 'amount' | 'currency'> & {
  occurredUs: bigint;
  /** Reversed by its sender: it counts for nothing (docs/reversals.md). Read, not filtered, so a walk can tell a reversed event from one retention dropped. */
  reversed: boolean;
};

export interface PendingEvent extends StoredEvent {
  receivedUs: bigint;
}

/** What the matcher's statements select: `userId` is the sender's own user id (a platform user id, or an advertiser user id). */
type EventRow = DriverRow<StoredEvent>;

const toStoredEvent = (row: EventRow): StoredEvent => ({
  id: row.id,
  providerId: row.providerId,
  userId: row.userId,
  eventType: row.eventType,
  occurredUs: BigInt(row.occurredUs),
  amount: row.amount,
  currency: row.currency,
  reversed: row.reversed,
});

/** The matcher's columns of `events e`, aliased as EventRow. */
const eventRowColumns = sql`e.id, e.provider_id as "providerId", e.user_id as "userId", e.event_type as "eventType",
  ${occurredUsColumn(sql`e.occurred_at`)} as "occurredUs", e.amount, e.currency, e.reversed_at is not null as reversed`;

/** An event to store: its dedup key (provider, user id, type, instant of `occurredAt`) and what it says. */
export type NewEvent = Pick<
  typeof events.$inferInsert,
  'providerId' | 'userId' | 'eventType' | 'occurredAt' | 'amount' | 'currency' | 'reference' | 'metadata'
>;

/** What storing an event found: its row, whether this call inserted it, and whether the matcher is done with it. */
export type EventWriteOutcome = Pick<EventColumns, 'id' | 'receivedAt'> & {
  inserted: boolean;
  processed: boolean;
};

type EventWriteRow = DriverRow<
  Pick<StoredEvent, 'id' | 'providerId' | 'userId' | 'eventType' | 'occurredUs'> & Pick<EventColumns, 'receivedAt'>
> & {
  inserted: boolean;
  processed: boolean;
};

const eventKey = (providerId: string, userId: SenderUserId, eventType: string, occurredUs: bigint | string) =>
  JSON.stringify([providerId, userId, eventType, String(occurredUs)]);

const keyOfNew = (event: NewEvent) => eventKey(event.providerId, event.userId, event.eventType, event.occurredAt);

const keyOfRow = (row: EventWriteRow) => eventKey(row.providerId, row.userId, row.eventType, row.occurredUs);

/**
 * Bounds a read of `events` by the timestamps it looks for, as constants, so
 * Postgres plans it on the partitions of those months only (events is
 * partitioned by month of occurred_at; a join condition alone is not pruned at
 * plan time). The join still compares each timestamp exactly.
 */
const partitionsOf = (occurredUs: readonly bigint[]): SQL =>
  sql`e.occurred_at = any(${`{${[...new Set(occurredUs)].map((us) => `"${formatIsoMicros(us)}"`).join(',')}}`}::timestamptz[])`;

/**
 * Inserts the events not stored yet (each with its pending marker) and finds
 * the ones that are, in ONE statement; a second one only when an insert lost
 * the race to a statement that committed after ours began. Answers one outcome
 * per input, in input order; repeats of a dedup key answer the same row.
 */
export async function insertOrFindEvents(db: Executor, newEvents: readonly NewEvent[]): Promise<EventWriteOutcome[]> {
  if (newEvents.length === 0) return [];
  const keys = newEvents.map(keyOfNew);
  const unique = new Map<string, NewEvent>();
  newEvents.forEach((event, i) => {
    if (!unique.has(keys[i]!)) unique.set(keys[i]!, event);
  });
  const rows = [...unique.entries()]
    // Insert in one global order: two concurrent batches sharing events in
    // different orders would otherwise each wait on the other's uncommitted
    // rows (a deadlock, answered 500).
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, event]) => ({
      provider_id: event.providerId,
      user_id: event.userId,
      event_type: event.eventType,
      occurred_at: events.occurredAt.mapToDriverValue(event.occurredAt),
      amount: event.amount ?? null,
      currency: event.currency ?? null,
      reference: event.reference ?? null,
      metadata: event.metadata ?? null,
    }));

  const occurred = [...unique.values()].map((event) => event.occurredAt);
  // The event and its pending marker in one statement: the matcher deletes the
  // marker when it has matched the event. The same statement returns the events
  // stored before it (with whether they still wait for the matcher), so a
  // duplicate costs no extra round trip: the input the insert skipped is
  // gathered first (materialised), and only its rows are looked up, one
  // lateral probe each (the limit keeps Postgres from flattening the probe
  // into a join it may plan as a scan), so a batch of new events never reads
  // events at all. (A join of every input row would keep a plan cached while the
  // partition was small, and scan the partition once it has grown.)
  const stored = await db.execute<EventWriteRow>(sql`
    with input as (
      select r.provider_id::uuid as provider_id, r.user_id, r.event_type, r.occurred_at::timestamptz as occurred_at,
             r.amount, r.currency, r.reference, r.metadata
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        as r(provider_id text, user_id text, event_type text, occurred_at text, amount float8, currency text, reference text, metadata jsonb)
    ), inserted as (
      insert into events (provider_id, user_id, event_type, occurred_at, amount, currency, reference, metadata)
      select provider_id, user_id, event_type, occurred_at, amount, currency, reference, metadata from input
      on conflict (provider_id, user_id, event_type, occurred_at) do nothing
      returning id, provider_id, user_id, event_type, occurred_at, received_at
    ), marked as (
      insert into pending_events (event_id, provider_id, occurred_at, received_at) select id, provider_id, occurred_at, received_at from inserted
    ), skipped as materialized (
      select i.provider_id, i.user_id, i.event_type, i.occurred_at from input i
      where not exists (
        select 1 from inserted x
        where x.provider_id = i.provider_id and x.user_id = i.user_id and x.event_type = i.event_type and x.occurred_at = i.occurred_at)
    )
    select id, provider_id as "providerId", user_id as "userId", event_type as "eventType", ${occurredUsColumn(sql`occurred_at`)} as "occurredUs",
           received_at as "receivedAt", true as inserted, false as processed
    from inserted
    union all
    select e.id, e.provider_id, e.user_id, e.event_type, ${occurredUsColumn(sql`e.occurred_at`)},
           e.received_at, false, not exists (select 1 from pending_events p where p.event_id = e.id)
    from skipped i
    cross join lateral (
      select e.id, e.provider_id, e.user_id, e.event_type, e.occurred_at, e.received_at from events e
      where e.provider_id = i.provider_id and e.user_id = i.user_id and e.event_type = i.event_type and e.occurred_at = i.occurred_at
        and ${partitionsOf(occurred)}
      limit 1
    ) e`);

  const found = new Map<string, EventWriteRow>();
  for (const row of stored) found.set(keyOfRow(row), row);

  const missing = [...unique.keys()].filter((key) => !found.has(key)).map((key) => unique.get(key)!);
  if (missing.length > 0) {
    // Lost the insert race to a statement that committed after ours began: read it now (a fresh statement sees that commit).
    const missingKeys = missing.map((event) => ({
      provider_id: event.providerId,
      user_id: event.userId,
      event_type: event.eventType,
      occurred_at: events.occurredAt.mapToDriverValue(event.occurredAt),
    }));
    const existing = await db.execute<EventWriteRow>(sql`
      select e.id, e.provider_id as "providerId", e.user_id as "userId", e.event_type as "eventType", ${occurredUsColumn(sql`e.occurred_at`)} as "occurredUs",
             e.received_at as "receivedAt", false as inserted,
             not exists (select 1 from pending_events p where p.event_id = e.id) as processed
      from events e
      join jsonb_to_recordset(${JSON.stringify(missingKeys)}::jsonb)
        as r(provider_id text, user_id text, event_type text, occurred_at text)
        on e.provider_id = r.provider_id::uuid and e.user_id = r.user_id and e.event_type = r.event_type and e.occurred_at = r.occurred_at::timestamptz
      where ${partitionsOf(missing.map((event) => event.occurredAt))}`);
    for (const row of existing) found.set(keyOfRow(row), row);
  }

  const outcomes = new Map<EventWriteRow, EventWriteOutcome>();
  return keys.map((key) => {
    const row = found.get(key);
    if (!row) throw new Error('event neither inserted nor found');
    let outcome = outcomes.get(row);
    if (!outcome) {
      outcome = {
        id: row.id,
        receivedAt: decodeTimestampUs(events.receivedAt, row.receivedAt),
        inserted: row.inserted,
        processed: row.processed,
      };
      outcomes.set(row, outcome);
    }
    return outcome;
  });
}

/**
 * Takes the still-pending events among `ids` for this transaction. Rows
 * another batch holds are skipped, not waited for: that batch's jobs carry
 * those ids too and are retried if it fails. Ids no longer pending (matched
 * already) are simply absent from the answer. Holds each claimed event's
 * sender (sender-locks.ts) until the transaction ends, so a statement after
 * this one resolves the senders' users as they stay until the commit.
 */
export async function takePendingEvents(tx: Executor, ids: readonly string[]): Promise<PendingEvent[]> {
  if (ids.length === 0) return [];
  const rows = await tx.execute<EventRow & { receivedUs: string }>(sql`
    with claimed as (
      select event_id, occurred_at, ${occurredUsColumn(sql`received_at`)} as received_us
      from pending_events where event_id = any(${idArray(ids)})
      order by event_id
      for update skip locked
    ), found as materialized (
      select e.*, c.received_us
      from claimed c
      -- By the full key (id, occurred_at), one lookup per event: Postgres reads only
      -- that event's partition (run-time pruning), not every month's index. The
      -- limit keeps the planner from flattening the lookup into a plain join, which
      -- it would plan for a large batch as a hash join over every partition in full
      -- (it cannot count on run-time pruning when it costs the nested loop).
      cross join lateral (select * from events e where e.id = c.event_id and e.occurred_at = c.occurred_at limit 1) e
    ), senders_locked as (
      -- Shared: batches never wait for each other here, only for a registration or a link of one of these senders.
      select count(pg_advisory_xact_lock_shared(${senderLockKey(sql`provider_id`, sql`user_id`)}))
      from (select distinct provider_id, user_id from found) s
    )
    select ${eventRowColumns}, e.received_us as "receivedUs"
    from found e cross join senders_locked`);
  return rows.map((row) => ({ ...toStoredEvent(row), receivedUs: BigInt(row.receivedUs) }));
}

/** Marks events matched: their pending rows go, in one statement. */
export async function deletePending(tx: Executor, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.delete(pendingEvents).where(sql`${pendingEvents.eventId} = any(${idArray(ids)})`);
}

/** Where a page of pending events ends: the reconciler's keyset. */
export type PendingEventKey = Pick<typeof pendingEvents.$inferSelect, 'receivedAt' | 'eventId'>;

/**
 * A pending event as the reconciler puts it back: its keyset position, its sender (the job's provider) and
 * the sender's user id (which picks its matching shard; null when the event itself is gone).
 */
export type PendingEventRow = PendingEventKey &
  Pick<typeof pendingEvents.$inferSelect, 'providerId'> & { userId: SenderUserId | null };

/**
 * The matching backlog for the operator's gauges: pending markers counted up
 * to `cap` (a backlog of millions would make an exact count a long scan; the
 * limit keeps it bounded) and the oldest one's receipt time (an index read).
 */
export async function pendingEventsBacklog(
  db: Executor,
  cap: number,
): Promise<{ count: number; oldestReceivedUs: bigint | null }> {
  const [oldest] = await db
    .select({ receivedAt: pendingEvents.receivedAt })
    .from(pendingEvents)
    .orderBy(asc(pendingEvents.receivedAt))
    .limit(1);
  const capped = db.select({ eventId: pendingEvents.eventId }).from(pendingEvents).limit(cap).as('capped');
  const [counted] = await db.select({ count: count() }).from(capped);
  return { count: counted?.count ?? 0, oldestReceivedUs: oldest?.receivedAt ?? null };
}

/**
 * Pending events received more than `minAgeMs` ago, oldest first, after the key `after` (keyset paging),
 * with their sender's user id.
 */
export async function pagePendingEvents(
  tx: Executor,
  options: { minAgeMs: number; after: PendingEventKey | null; limit: number },
): Promise<PendingEventRow[]> {
  const { after } = options;
  const rows = await tx.execute<{ eventId: string; providerId: string; receivedUs: string; userId: SenderUserId | null }>(sql`
    with page as (
      select event_id, provider_id, occurred_at, received_at
      from pending_events
      where received_at < now() - make_interval(secs => ${options.minAgeMs / 1000})
        ${after ? sql`and (received_at, event_id) > (${instant(after.receivedAt)}, ${after.eventId}::uuid)` : sql``}
      order by received_at, event_id
      limit ${options.limit}
    )
    select p.event_id as "eventId", p.provider_id as "providerId", ${occurredUsColumn(sql`p.received_at`)} as "receivedUs", e.user_id as "userId"
    from page p
    -- One lookup per event by its full key (id, occurred_at), reading only its partition; the limit keeps the
    -- planner from flattening it into a hash join over every partition (as in takePendingEvents).
    left join lateral (select user_id from events e where e.id = p.event_id and e.occurred_at = p.occurred_at limit 1) e on true
    order by p.received_at, p.event_id`);
  return rows.map((row) => ({
    eventId: row.eventId,
    providerId: row.providerId,
    receivedAt: BigInt(row.receivedUs),
    userId: row.userId,
  }));
}

/**
 * Whose history to read: a sender and the user id it used (§4's sources,
 * shared/domain/sources.ts), the span of it to read, and the one type to read
 * there (absent: every type asked for).
 */
export type HistorySource = EventSource & { fromUs?: bigint; untilUs?: bigint; eventType?: string };

/** A stored event as explain shows it: whether the matcher has processed it yet. */
export type ExplainedEvent = StoredEvent & { pending: boolean };

/**
 * Every stored event of the given sources whose type is one of `eventTypes`
 * and whose timestamp lies in [fromUs, untilUs), or in the source's own
 * narrower window when it has one (a redo after late events reads only the
 * part of a user's history it walks again): what a recompute walks. Of the
 * events still pending, only the batch's own (`claimedIds`) are read: an
 * event is walked first by the batch that claims it, never by another
 * batch's history read, so a walk has counted only processed events and a
 * late event's claim can be absorbed into its tallies (docs/matching.md,
 * "Late events absorbed"). `claimedIds` null: every stored event, pending or
 * not (a backtest, which writes nothing).
 */
export async function loadHistory(
  tx: Executor,
  sources: readonly HistorySource[],
  eventTypes: readonly string[],
  window: { fromUs: bigint; untilUs: bigint },
  claimedIds: readonly string[] | null,
): Promise<StoredEvent[]> {
  if (sources.length === 0 || eventTypes.length === 0) return [];
  // One primary-key probe of pending_events a row read; the batch's own ids are compared only for a pending row.
  const processed =
    claimedIds === null
      ? sql``
      : sql`and not exists (
        select 1 from pending_events p where p.event_id = e.id and p.event_id <> all(${idArray(claimedIds)}))`;
  const rows = await tx.execute<EventRow>(historyStatement(sources, eventTypes, window, sql``, processed));
  return rows.map(toStoredEvent);
}

/**
 * Every stored event of the given sources whose type is one of `eventTypes`,
 * at any time (explain shows those outside the chain's dates too), each with
 * whether it still waits for the matcher.
 */
export async function loadHistoryWithPending(
  db: Executor,
  sources: readonly HistorySource[],
  eventTypes: readonly string[],
): Promise<ExplainedEvent[]> {
  if (sources.length === 0 || eventTypes.length === 0) return [];
  const pending = sql`, exists (select 1 from pending_events p where p.event_id = e.id) as pending`;
  const rows = await db.execute<EventRow & { pending: boolean }>(historyStatement(sources, eventTypes, null, pending));
  return rows.map((row) => ({ ...toStoredEvent(row), pending: row.pending }));
}

/**
 * One range of the dedup index (provider_id, user_id, event_type,
 * occurred_at) per source and type: the `offset 0` keeps the lateral scan
 * from being flattened into a join, which the planner, counting few rows per
 * user, planned as one scan of the user's whole index range with the type and
 * the window as filters (a busy user's thousands of entries read for a few
 * rows). A source with a type of its own is read for that type alone, so a
 * batch's recomputes read each type over the spans asked of that type, not
 * every type over the widest span asked of the sender. The shared window
 * (null: none) also prunes partitions.
 */
function historyStatement(
  sources: readonly HistorySource[],
  eventTypes: readonly string[],
  window: { fromUs: bigint; untilUs: bigint } | null,
  extraColumns: SQL,
  extraFilter: SQL = sql``,
): SQL {
  const types = [...new Set(eventTypes)];
  const ranges = sources.flatMap((source) =>
    (source.eventType === undefined ? types : [source.eventType]).map((eventType) => ({ ...source, eventType })),
  );
  const inWindow = window
    ? sql`and e.occurred_at >= ${instant(window.fromUs)} and e.occurred_at < ${instant(window.untilUs)}
        and e.occurred_at >= ${fromUs(sql`s.from_us`)} and e.occurred_at < ${fromUs(sql`s.until_us`)}`
    : sql``;
  const spans = window
    ? sql`, ${numberArray(
        ranges.map((r) => r.fromUs ?? window.fromUs),
        'bigint',
      )}, ${numberArray(
        ranges.map((r) => r.untilUs ?? window.untilUs),
        'bigint',
      )}`
    : sql``;
  return sql`
    select ${eventRowColumns}${extraColumns}
    from unnest(${idArray(ranges.map((r) => r.providerId))}, ${textArray(ranges.map((r) => r.userId))},
                ${textArray(ranges.map((r) => r.eventType))}${spans})
           as s(provider_id, user_id, event_type${window ? sql`, from_us, until_us` : sql``})
    cross join lateral (
      select * from events e
      where e.provider_id = s.provider_id and e.user_id = s.user_id and e.event_type = s.event_type
        ${inWindow}
        ${extraFilter}
      offset 0) e`;
}

const sourcesTable = (sources: readonly EventSource[]) =>
  sql`unnest(${idArray(sources.map((s) => s.providerId))}, ${textArray(sources.map((s) => s.userId))}) as s(provider_id, user_id)`;

/** How many stored events of the sources (any type) still wait for the matcher. */
export async function countPendingEvents(db: Executor, sources: readonly EventSource[]): Promise<number> {
  if (sources.length === 0) return 0;
  const [row] = await db.execute<{ n: string }>(sql`
    select count(*)::text as n from ${sourcesTable(sources)}
    join events e on e.provider_id = s.provider_id and e.user_id = s.user_id
    join pending_events p on p.event_id = e.id`);
  return Number(row?.n ?? 0);
}

/** What reversing one event found: the event (with its sender's user id) and whether an earlier call had reversed it. */
export interface ReversedEvent {
  eventId: string;
  userId: SenderUserId;
  reversedUs: bigint;
  reason: string | null;
  alreadyReversed: boolean;
}

/**
 * Reverses the provider's events with these ids, in one statement: sets
 * `reversed_at` (and the reason) where it is not set yet, and answers every
 * one of them that exists, newly reversed or reversed before (with the first
 * reversal's time and reason). Ids of no event of this provider are absent.
 *
 * Each id is looked up alone, through each partition's primary key (the
 * lateral join in a materialised step), and only then checked against the
 * provider: with the provider's condition where the planner can push it into
 * the lookup, one whose statistics predate a new provider's first burst of
 * events reads all of that provider's events instead, a cost that grows with
 * the partition. The lookup locks the rows it finds, so
 * a concurrent reversal of the same event waits for this one and then reads
 * it as reversed before: it answers `alreadyReversed`, not "not found".
 */
export async function reverseEvents(
  tx: Executor,
  providerId: string,
  reversals: readonly { eventId: string; reason: string | null }[],
): Promise<ReversedEvent[]> {
  if (reversals.length === 0) return [];
  const rows = await tx.execute<{
    id: string;
    userId: SenderUserId;
    reversedUs: string;
    reason: string | null;
    already: boolean;
  }>(sql`
    with input as (
      select distinct on (id) id, reason
      from unnest(${idArray(reversals.map((r) => r.eventId))}, ${textArray(reversals.map((r) => r.reason))}) as r(id, reason)
    ), found as materialized (
      select e.id, e.occurred_at, e.user_id, e.provider_id, e.reversed_at, e.reversal_reason, i.reason
      from input i
      cross join lateral (select id, occurred_at, user_id, provider_id, reversed_at, reversal_reason from events where id = i.id for update) e
    ), reversed as (
      update events e set reversed_at = now(), reversal_reason = f.reason
      from found f
      where e.id = f.id and e.occurred_at = f.occurred_at and f.provider_id = ${providerId} and f.reversed_at is null
      returning e.id, e.user_id, e.reversed_at, e.reversal_reason
    )
    select id, user_id as "userId", ${occurredUsColumn(sql`reversed_at`)} as "reversedUs", reversal_reason as reason, false as already from reversed
    union all
    select id, user_id, ${occurredUsColumn(sql`reversed_at`)}, reversal_reason, true from found where provider_id = ${providerId} and reversed_at is not null`);
  return rows.map((row) => ({
    eventId: row.id,
    userId: row.userId,
    reversedUs: BigInt(row.reversedUs),
    reason: row.reason,
    alreadyReversed: row.already,
  }));
}
