import { sql } from 'drizzle-orm';
import { type AnyPgColumn, index, pgEnum, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { MODES } from '../../domain/test-mode.js';
import { timestampUs } from '../columns.js';

export const providerType = pgEnum('provider_type', ['platform', 'advertiser']);
export const activeStatus = pgEnum('active_status', ['active', 'inactive']);

/** A credential's and a chain's mode (docs/test-mode.md). */
export const mode = pgEnum('mode', MODES);

export const providers = pgTable(
  'providers',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    type: providerType('type').notNull(),
    name: text('name').notNull(),
    status: activeStatus('status').notNull().default('active'),
    createdAt: timestampUs('created_at', { precision: 3 }).notNull().default(sql`now()`),
    /** Set on a test twin (docs/test-mode.md): the live provider it is the test mode of. Null for every live provider. */
    liveProviderId: uuid('live_provider_id').references((): AnyPgColumn => providers.id),
  },
  (table) => [uniqueIndex('providers_live_provider_unique').on(table.liveProviderId)],
);

/** The secret itself is never stored: only its SHA-256 (it has 256 bits of entropy, so a slow KDF buys nothing). */
export const credentials = pgTable(
  'credentials',
  {
    key: text('key').primaryKey(),
    providerId: uuid('provider_id')
      .notNull()
      .references(() => providers.id),
    secretHash: text('secret_hash').notNull(),
    permissions: text('permissions').array().notNull(),
    status: activeStatus('status').notNull().default('active'),
    createdAt: timestampUs('created_at', { precision: 3 }).notNull().default(sql`now()`),
  },
  (table) => [index('credentials_provider_idx').on(table.providerId)],
);
