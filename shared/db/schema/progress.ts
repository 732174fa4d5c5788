import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, uuid } from 'drizzle-orm/pg-core';
import type { ServiceUserId } from '../../domain/ids.js';
import { timestampUs } from '../columns.js';
import type { TalliesJson } from '../tally-column.js';
import { questChains, questTasks } from './quest-chains.js';
import { users } from './users.js';

/** Which event completed which task for which user (the matcher's output). */
export const taskCompletions = pgTable(
  'task_completions',
  {
    userId: uuid('user_id')
      .$type<ServiceUserId>()
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
    /**
     * completed_at less the user's joining of the chain (or of the run of a repeating chain; chain-view.ts, joinedUs),
     * in µs, written with the completion: a task's median time to complete is the middle entry of an index range.
     */
    sinceJoinedUs: bigint('since_joined_us', { mode: 'bigint' }).notNull(),
    recordedAt: timestampUs('recorded_at', { precision: 3 }).notNull().default(sql`now()`),
    /** The task stays completed only because its reward was claimed: its events no longer complete it (a reversal, docs/reversals.md). */
    held: boolean('held').notNull().default(false),
    /** The run of a repeating chain this completion is in (its first instant, epoch µs); 0 in a chain that does not repeat. */
    runStartUs: bigint('period_start_us', { mode: 'bigint' }).notNull().default(0n),
  },
  (table) => [
    primaryKey({ columns: [table.userId, table.taskId, table.runStartUs] }),
    // The chain stats (0014): completions per task counted from the first (its entries share keys, so Postgres
    // stores them as a few posting lists), each task's median read at an offset in the second.
    index('task_completions_chain_task_idx').on(table.chainId, table.taskId),
    index('task_completions_chain_task_wait_idx').on(table.chainId, table.taskId, table.sinceJoinedUs),
  ],
);

/**
 * Per user and chain: the summary of the completions, rewritten whenever they
 * change, and the matcher's walk state (the high-water mark): the position
 * (timestamp in epoch microseconds, event id) of the last relevant event walked
 * by §5. An event after the mark is applied incrementally; one before it makes
 * the matcher recompute. A null mark (rows from before marks existed) always recomputes.
 *
 * Its pages are filled to 70 % (drizzle/0019; drizzle's table builder has no
 * storage parameters), so a rewrite of the mark or tallies is a HOT update.
 */
export const chainProgress = pgTable(
  'chain_progress',
  {
    userId: uuid('user_id')
      .$type<ServiceUserId>()
      .notNull()
      .references(() => users.id),
    chainId: uuid('chain_id')
      .notNull()
      .references(() => questChains.id),
    completedTasks: integer('completed_tasks').notNull(),
    totalTasks: integer('total_tasks').notNull(),
    completedAt: timestampUs('completed_at', { precision: 6 }),
    /** The earliest of the walk's completions (held ones included); null while it has none. The chain stats' daily starts. */
    firstCompletedAt: timestampUs('first_completed_at', { precision: 6 }),
    /** The user's progress stamp when these completions last changed; null while none ever did. */
    updatedAt: timestampUs('updated_at', { precision: 3 }).default(sql`now()`),
    markUs: bigint('mark_us', { mode: 'bigint' }),
    markEventId: uuid('mark_event_id'),
    /** What each task of a counted, summed or streak chain gathered so far, by task id (docs/quest-language.md); null in other chains. */
    tallies: jsonb('tallies').$type<TalliesJson>(),
    /** How many times a completion here was undone: names each completion and reversal once in webhook facts. */
    generation: integer('generation').notNull().default(0),
    /** The run of a repeating chain this walk is (its first instant, epoch µs); 0 in a chain that does not repeat. */
    runStartUs: bigint('period_start_us', { mode: 'bigint' }).notNull().default(0n),
  },
  (table) => [
    primaryKey({ columns: [table.userId, table.chainId, table.runStartUs] }),
    // The chain stats (0014) count a chain's walks by ranges of days: started (and the funnel) in the first,
    // completed in the second, which holds completed walks only.
    index('chain_progress_chain_started_idx').on(table.chainId, table.firstCompletedAt, table.generation),
    index('chain_progress_chain_completed_idx').on(table.chainId, table.completedAt).where(sql`${table.completedAt} is not null`),
  ],
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
    userId: uuid('user_id')
      .$type<ServiceUserId>()
      .notNull()
      .references(() => users.id),
    admittedAt: timestampUs('admitted_at', { precision: 3 }).notNull().default(sql`now()`),
  },
  (table) => [primaryKey({ columns: [table.chainId, table.userId] })],
);
