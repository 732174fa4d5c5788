import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core';
import { timestampUs } from '../columns.js';
import { providers } from './providers.js';

/**
 * A provider's webhook endpoint (product rules §10). The signing secret must
 * be read back to sign each delivery, so it is stored as is (like the
 * service's own secrets in service_secrets) and leaves the database only
 * towards the delivery worker's signer, never into a response after creation,
 * a log line or a job. A deleted endpoint keeps its row (its messages point
 * at it) with `deleted_at` set; nothing is sent to it any more.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    providerId: uuid('provider_id')
      .notNull()
      .references(() => providers.id),
    url: text('url').notNull(),
    eventTypes: text('event_types').array().notNull(),
    secret: text('secret').notNull(),
    createdAt: timestampUs('created_at', { precision: 3 }).notNull().default(sql`now()`),
    deletedAt: timestampUs('deleted_at', { precision: 3 }),
  },
  (table) => [index('webhook_endpoints_provider_idx').on(table.providerId).where(sql`deleted_at is null`)],
);

export const WEBHOOK_MESSAGE_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookMessageStatus = (typeof WEBHOOK_MESSAGE_STATUSES)[number];

/**
 * The outbox: one row per (endpoint, fact), written in the transaction that
 * records the fact. `fact` names the fact (`task.completed/<user>/<task>`…);
 * the unique key (endpoint_id, fact) makes "announced once" a database
 * guarantee whatever the retries, redeliveries or concurrent workers.
 * `attempts` counts the scheduled attempts made (replays are not counted);
 * `locked_until` is the lease of the worker making one right now.
 */
export const webhookMessages = pgTable(
  'webhook_messages',
  {
    id: text('id').primaryKey(),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id),
    fact: text('fact').notNull(),
    type: text('type').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    createdAt: timestampUs('created_at', { precision: 6 }).notNull().default(sql`clock_timestamp()`),
    status: text('status').$type<WebhookMessageStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestampUs('next_attempt_at', { precision: 3 }).notNull().default(sql`now()`),
    lockedUntil: timestampUs('locked_until', { precision: 3 }),
  },
  (table) => [
    unique('webhook_messages_once').on(table.endpointId, table.fact),
    check('webhook_messages_status_check', sql`${table.status} IN ('pending', 'delivered', 'failed')`),
    index('webhook_messages_endpoint_idx').on(table.endpointId, table.createdAt, table.id),
    index('webhook_messages_due_idx').on(table.nextAttemptAt).where(sql`status = 'pending'`),
  ],
);

/** Every delivery attempt of a message: when, the HTTP status (null when none came) or the error, how long. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigint('id', { mode: 'bigint' }).primaryKey().generatedAlwaysAsIdentity(),
    messageId: text('message_id')
      .notNull()
      .references(() => webhookMessages.id),
    at: timestampUs('at', { precision: 3 }).notNull(),
    statusCode: integer('status_code'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
  },
  (table) => [index('webhook_attempts_message_idx').on(table.messageId, table.id)],
);
