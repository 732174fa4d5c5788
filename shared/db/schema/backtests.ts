import { sql } from 'drizzle-orm';
import { check, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import type { ServiceUserId } from '../../domain/ids.js';
import { timestampUs } from '../columns.js';
import { providers } from './providers.js';

export const BACKTEST_STATUSES = ['running', 'completed', 'failed'] as const;

/**
 * One backtest of a draft chain (§12) and its state, so any API replica can
 * answer GET and resume it: the process running it (`runner_id`) checkpoints
 * after every page of users (cursor, counts so far, heartbeat); a running row
 * whose heartbeat lapsed is taken over from its cursor (backtest-store.ts).
 * The draft itself is kept as its domain form in JSON (bigints as strings).
 */
export const backtests = pgTable(
  'backtests',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    platformId: uuid('platform_id')
      .notNull()
      .references(() => providers.id),
    draft: jsonb('draft').notNull(),
    status: text('status', { enum: BACKTEST_STATUSES }).notNull().default('running'),
    usersTotal: integer('users_total').notNull().default(0),
    usersDone: integer('users_done').notNull().default(0),
    /** The last user id evaluated (users are read in id order); null before the first page. */
    cursor: uuid('cursor').$type<ServiceUserId>(),
    /** The counts so far (shared/domain/backtest.ts' BacktestTally as JSON). */
    tally: jsonb('tally').notNull(),
    result: jsonb('result'),
    error: text('error'),
    runnerId: text('runner_id'),
    heartbeatAt: timestampUs('heartbeat_at', { precision: 3 }).notNull().default(sql`now()`),
    createdAt: timestampUs('created_at', { precision: 3 }).notNull().default(sql`now()`),
    updatedAt: timestampUs('updated_at', { precision: 3 }).notNull().default(sql`now()`),
  },
  (table) => [check('backtests_status_check', sql`${table.status} in ('running', 'completed', 'failed')`)],
);
