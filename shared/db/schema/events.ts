import { sql } from 'drizzle-orm';
import { doublePrecision, index, jsonb, pgTable, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { providers } from './providers.js';

/**
 * Every accepted event. The unique key is the published dedup key, read per
 * provider: (calling provider, user_id, event_type, instant of timestamp).
 * `occurred_at` keeps microseconds (precision 6) so distinct instants stay distinct.
 */
export const events = pgTable(
  'events',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    providerId: uuid('provider_id')
      .notNull()
      .references(() => providers.id),
    userId: text('user_id').notNull(),
    eventType: text('event_type').notNull(),
    occurredAt: timestamp('occurred_at', { withTimezone: true, precision: 6, mode: 'string' }).notNull(),
    amount: doublePrecision('amount'),
    currency: text('currency'),
    reference: text('reference'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>(),
    receivedAt: timestamp('received_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    /** Null until the worker has matched the event; the reconciler re-enqueues what stays null. */
    processedAt: timestamp('processed_at', { withTimezone: true, precision: 3 }),
  },
  (table) => [
    unique('events_dedup_key').on(table.providerId, table.userId, table.eventType, table.occurredAt),
    index('events_unprocessed_idx').on(table.receivedAt).where(sql`${table.processedAt} is null`),
  ],
);
