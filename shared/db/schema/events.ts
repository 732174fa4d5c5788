import { sql } from 'drizzle-orm';
import { doublePrecision, index, jsonb, pgTable, primaryKey, text, unique, uuid } from 'drizzle-orm/pg-core';
import type { SenderUserId } from '../../domain/ids.js';
import { timestampUs } from '../columns.js';
import { providers } from './providers.js';

/**
 * Every accepted event. The unique key is the published dedup key, read per
 * provider: (calling provider, user_id, event_type, instant of timestamp).
 * `occurred_at` keeps microseconds (precision 6) so distinct instants stay distinct.
 *
 * Range-partitioned by month of `occurred_at` (drizzle/0005_partitioned_events.sql;
 * drizzle cannot declare partitioning): every key must contain the partition
 * key, so the primary key is (id, occurred_at), and a row is found by both
 * (`pending_events` carries the timestamp for that). Partitions are created
 * and dropped by shared/db/event-month-tables.ts.
 */
export const events = pgTable(
  'events',
  {
    id: uuid('id').notNull().default(sql`gen_random_uuid()`),
    providerId: uuid('provider_id')
      .notNull()
      .references(() => providers.id),
    userId: text('user_id').$type<SenderUserId>().notNull(),
    eventType: text('event_type').notNull(),
    occurredAt: timestampUs('occurred_at', { precision: 6 }).notNull(),
    amount: doublePrecision('amount'),
    currency: text('currency'),
    reference: text('reference'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>(),
    receivedAt: timestampUs('received_at', { precision: 3 }).notNull().default(sql`now()`),
    /** Set once by its sender's reversal (a refund, a chargeback): from then on the event counts for nothing (docs/reversals.md). */
    reversedAt: timestampUs('reversed_at', { precision: 3 }),
    reversalReason: text('reversal_reason'),
  },
  (table) => [
    primaryKey({ columns: [table.id, table.occurredAt] }),
    unique('events_dedup_key').on(table.providerId, table.userId, table.eventType, table.occurredAt),
  ],
);

/**
 * Events accepted but not yet matched. Events themselves are insert-only: the
 * "processed" state lives here, where the matcher deletes a batch's rows in one
 * statement instead of updating every event row (which doubled write volume and
 * could never be a HOT update). Written in the same statement as the event, so
 * it needs no foreign key (that would cost an index probe per ingested event).
 * The reconciler re-enqueues rows that stay here too long.
 */
export const pendingEvents = pgTable(
  'pending_events',
  {
    eventId: uuid('event_id').primaryKey(),
    providerId: uuid('provider_id').notNull(),
    /** The event's `occurred_at`: with the id, the event's key, so the matcher reads only its partition. */
    occurredAt: timestampUs('occurred_at', { precision: 6 }).notNull(),
    receivedAt: timestampUs('received_at', { precision: 3 }).notNull().default(sql`now()`),
  },
  (table) => [index('pending_events_received_idx').on(table.receivedAt, table.eventId)],
);
