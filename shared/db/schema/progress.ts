import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, uuid } from 'drizzle-orm/pg-core';
import { timestampUs } from '../columns.js';
import { questChains, questTasks } from './quest-chains.js';
import { users } from './users.js';
import type { ServiceUserId } from '../../domain/ids.js';
import type { StoredTallies } from '../../domain/tally.js';

/** Which event completed which task for which user (the matcher's output). */
export const taskCompletions = pgTable(
  'task_completions',
  {
    userId: uuid('user_id').$type<ServiceUserId>()
      .notNull()
      .references(() => users.id),
    taskId: uuid('task_id')
      .notNull()
      .references(() => questTasks.id),
    chainId: uuid('chain_id')
      .notNull()
      .references(() => questChains.id),
    // No foreign key: events are partitioned (a key to them needs the partition key) and retention
    // drops them while their completions stay (docs/decisions.md, "Partitioned events").
    eventId: uuid('event_id').notNull(),
    completedAt: timestampUs('completed_at', { precision: 6 }).notNull(),
    recordedAt: timestampUs('recorded_at', { precision: 3 }).notNull().default(sql`now()`),
    /** The task stays completed only because its reward was claimed: its events no longer complete it (a reversal, docs/reversals.md). */
    held: boolean('held').notNull().default(false),
    /** The run of a repeating chain this completion is in (its first instant, epoch µs); 0 in a chain that does not repeat. */
    periodStartUs: bigint('period_start_us', { mode: 'bigint' }).notNull().default(0n),
  },
  (table) => [primaryKey({ columns: [table.userId, table.taskId, table.periodStartUs] }), index('task_completions_chain_idx').on(table.chainId)],
);

/**
 * Per user and chain: the summary of the completions, rewritten whenever they
 * change, and the matcher's walk state (the high-water mark): the position
 * (timestamp in epoch microseconds, event id) of the last relevant event walked
 * by §5. An event after the mark is applied incrementally; one before it makes
 * the matcher recompute. A null mark (rows from before marks existed) always recomputes.
 */
export const chainProgress = pgTable(
  'chain_progress',
  {
    userId: uuid('user_id').$type<ServiceUserId>()
      .notNull()
      .references(() => users.id),
    chainId: uuid('chain_id')
      .notNull()
      .references(() => questChains.id),
    completedTasks: integer('completed_tasks').notNull(),
    totalTasks: integer('total_tasks').notNull(),
    completedAt: timestampUs('completed_at', { precision: 6 }),
    /** The user's progress stamp when these completions last changed; null while none ever did. */
    updatedAt: timestampUs('updated_at', { precision: 3 }).default(sql`now()`),
    markUs: bigint('mark_us', { mode: 'bigint' }),
    markEventId: uuid('mark_event_id'),
    /** What each task of a counted, summed or streak chain gathered so far, by task id (docs/quest-language.md); null in other chains. */
    tallies: jsonb('tallies').$type<StoredTallies>(),
    /** How many times a completion here was undone: names each completion and reversal once in webhook facts. */
    generation: integer('generation').notNull().default(0),
    /** The run of a repeating chain this walk is (its first instant, epoch µs); 0 in a chain that does not repeat. */
    periodStartUs: bigint('period_start_us', { mode: 'bigint' }).notNull().default(0n),
  },
  (table) => [primaryKey({ columns: [table.userId, table.chainId, table.periodStartUs] })],
);

/**
 * The users a chain with max_completions admitted (docs/budgets.md,
 * "Completion caps"): a user takes a place with their first completion in
 * the chain and keeps it, whatever is reversed later.
 */
export const chainAdmissions = pgTable(
  'chain_admissions',
  {
    chainId: uuid('chain_id')
      .notNull()
      .references(() => questChains.id),
    userId: uuid('user_id').$type<ServiceUserId>()
      .notNull()
      .references(() => users.id),
    admittedAt: timestampUs('admitted_at', { precision: 3 }).notNull().default(sql`now()`),
  },
  (table) => [primaryKey({ columns: [table.chainId, table.userId] })],
);
