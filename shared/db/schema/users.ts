import { sql } from 'drizzle-orm';
import { bigint, boolean, char, index, jsonb, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core';
import type { SenderUserId, ServiceUserId } from '../../domain/ids.js';
import { timestampUs } from '../columns.js';
import { providers } from './providers.js';

export const users = pgTable(
  'users',
  {
    id: uuid('id').$type<ServiceUserId>().primaryKey().default(sql`gen_random_uuid()`),
    platformId: uuid('platform_id')
      .notNull()
      .references(() => providers.id),
    platformUserId: text('platform_user_id').$type<SenderUserId>().notNull(),
    countryCode: char('country_code', { length: 2 }),
    userMetadata: jsonb('user_metadata').$type<Record<string, unknown>>(),
    createdAt: timestampUs('created_at', { precision: 3 }).notNull().default(sql`now()`),
    /** Set when every stored event of the user must be (re)matched: new user, new chain. The reconciler drains it. */
    needsEvaluation: boolean('needs_evaluation').notNull().default(true),
    /** Server clock time of the latest change of this user's progress (the live-updates baseline). */
    progressChangedAt: timestampUs('progress_changed_at', { precision: 3 }),
    /**
     * The transaction that last wrote any of the user's walks (chain_progress, task_completions), set by the
     * statement triggers of 0015: a worker reuses walks it holds only while this is the version it saw.
     */
    walksVersion: bigint('walks_version', { mode: 'bigint' }).notNull().default(0n),
  },
  (table) => [
    unique('users_platform_user_unique').on(table.platformId, table.platformUserId),
    index('users_needs_evaluation_idx').on(table.id).where(sql`${table.needsEvaluation}`),
    // A platform's users in id order: the pages a backtest reads (0004).
    index('users_platform_id_idx').on(table.platformId, table.id),
  ],
);
