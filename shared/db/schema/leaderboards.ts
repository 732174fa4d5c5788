import { sql } from 'drizzle-orm';
import {
  check,
  doublePrecision,
  foreignKey,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  pgView,
  primaryKey,
  text,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';
import type { ServiceUserId } from '../../domain/ids.js';
import { LEADERBOARD_METRICS, LEADERBOARD_STATUSES } from '../../domain/leaderboards.js';
import type { Recurrence } from '../../domain/recurrence.js';
import { timestampUs } from '../columns.js';
import { mode, providers } from './providers.js';
import { users } from './users.js';

// Leaderboards (product rules §19, docs/leaderboards.md), migration 0017.

export const leaderboardMetric = pgEnum('leaderboard_metric', LEADERBOARD_METRICS);
export const leaderboardStatus = pgEnum('leaderboard_status', LEADERBOARD_STATUSES);

/** A platform's ranking of its users by one metric, over one period or a repeating one. */
export const leaderboards = pgTable(
  'leaderboards',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    /** The platform, or its test twin for a `test` board (docs/test-mode.md). */
    platformId: uuid('platform_id')
      .notNull()
      .references(() => providers.id),
    mode: mode('mode').notNull().default('live'),
    name: text('name').notNull(),
    metric: leaderboardMetric('metric').notNull(),
    startDate: timestampUs('start_date', { precision: 6 }).notNull(),
    /** Null: the board runs on. */
    endDate: timestampUs('end_date', { precision: 6 }),
    /** A repeating board: each day, week or month of it is a period of its own; null: one period. */
    recurrence: jsonb('recurrence').$type<Recurrence>(),
    /** Ranked entries a finished period keeps. */
    size: integer('size').notNull().default(1000),
    status: leaderboardStatus('status').notNull().default('active'),
    /** Periods starting before this are final, or were over before the board existed: the finalizer goes on from here. */
    finalizedUntil: timestampUs('finalized_until', { precision: 6 }).notNull(),
    createdAt: timestampUs('created_at', { precision: 3 }).notNull().default(sql`now()`),
    archivedAt: timestampUs('archived_at', { precision: 3 }),
  },
  (table) => [
    index('leaderboards_platform_idx').on(table.platformId, table.status),
    check('leaderboards_dates_check', sql`${table.endDate} IS NULL OR ${table.endDate} > ${table.startDate}`),
    check('leaderboards_size_check', sql`${table.size} BETWEEN 1 AND 100000`),
  ],
);

/** A finished period of a board, once; its final standings are written with it. */
export const leaderboardPeriods = pgTable(
  'leaderboard_periods',
  {
    leaderboardId: uuid('leaderboard_id')
      .notNull()
      .references(() => leaderboards.id),
    periodStart: timestampUs('period_start', { precision: 6 }).notNull(),
    periodEnd: timestampUs('period_end', { precision: 6 }).notNull(),
    /** How many users the final standings rank (at most the board's size). */
    ranked: integer('ranked').notNull(),
    finalizedAt: timestampUs('finalized_at', { precision: 3 }).notNull().default(sql`now()`),
  },
  (table) => [primaryKey({ columns: [table.leaderboardId, table.periodStart] })],
);

/** A finished period's final standings: its top `size` users, ranked. */
export const leaderboardStandings = pgTable(
  'leaderboard_standings',
  {
    leaderboardId: uuid('leaderboard_id').notNull(),
    periodStart: timestampUs('period_start', { precision: 6 }).notNull(),
    rank: integer('rank').notNull(),
    userId: uuid('user_id')
      .$type<ServiceUserId>()
      .notNull()
      .references(() => users.id),
    score: doublePrecision('score').notNull(),
    reachedAt: timestampUs('reached_at', { precision: 6 }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.leaderboardId, table.periodStart, table.rank] }),
    unique('leaderboard_standings_user_unique').on(table.leaderboardId, table.periodStart, table.userId),
    foreignKey({
      name: 'leaderboard_standings_period_fk',
      columns: [table.leaderboardId, table.periodStart],
      foreignColumns: [leaderboardPeriods.leaderboardId, leaderboardPeriods.periodStart],
    }),
  ],
);

/**
 * Users whose standings must be computed again, written in the transaction
 * of the change (a chain completion, a points entry) and deleted once Redis
 * holds the new standings: the outbox of core/leaderboards/refresh-standings.ts.
 */
export const leaderboardRefreshes = pgTable('leaderboard_refreshes', {
  userId: uuid('user_id')
    .$type<ServiceUserId>()
    .primaryKey()
    .references(() => users.id),
  queuedAt: timestampUs('queued_at', { precision: 3 }).notNull().default(sql`now()`),
});

/**
 * What the points metric counts (0017's view over the ledger, §18): each
 * claim's credit and each reversal's debit or credit back of it, with the
 * credit's time (the period it counts in) and its own (when the score moved).
 */
export const leaderboardPointEntries = pgView('leaderboard_point_entries', {
  userId: uuid('user_id').$type<ServiceUserId>().notNull(),
  amount: doublePrecision('amount').notNull(),
  creditedAt: timestampUs('credited_at', { precision: 3 }).notNull(),
  at: timestampUs('at', { precision: 3 }).notNull(),
}).existing();
