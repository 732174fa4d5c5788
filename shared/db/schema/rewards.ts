import { sql } from 'drizzle-orm';
import { bigint, jsonb, pgEnum, pgTable, unique, uuid } from 'drizzle-orm/pg-core';
import { timestampUs } from '../columns.js';
import { questChains, questTasks } from './quest-chains.js';
import { users } from './users.js';
import type { ServiceUserId } from '../../domain/ids.js';

export const rewardKind = pgEnum('reward_kind', ['task', 'chain']);

/**
 * A granted reward. The unique key (user, chain, task, run) with NULLS NOT DISTINCT
 * makes "granted at most once" a database guarantee, for chain rewards
 * (task_id null) as well as task rewards, whatever the concurrency.
 */
export const rewardClaims = pgTable(
  'reward_claims',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    userId: uuid('user_id').$type<ServiceUserId>()
      .notNull()
      .references(() => users.id),
    kind: rewardKind('kind').notNull(),
    chainId: uuid('chain_id')
      .notNull()
      .references(() => questChains.id),
    taskId: uuid('task_id').references(() => questTasks.id),
    /** Snapshot of the reward as granted. */
    reward: jsonb('reward').$type<Record<string, unknown>>().notNull(),
    claimedAt: timestampUs('claimed_at', { precision: 3 }).notNull().default(sql`now()`),
    /** A task claim: the completion claimed (event, timestamp). The walk keeps the task completed from there (a hold, docs/reversals.md). */
    completedEventId: uuid('completed_event_id'),
    completedAt: timestampUs('completed_at', { precision: 6 }),
    /** Set while the claimed completion no longer stands on events that count (the reward is kept, marked reversed). */
    reversedAt: timestampUs('reversed_at', { precision: 3 }),
    /** The run of a repeating chain claimed from (its first instant, epoch µs); 0 in a chain that does not repeat. */
    periodStartUs: bigint('period_start_us', { mode: 'bigint' }).notNull().default(0n),
  },
  (table) => [unique('reward_claims_once').on(table.userId, table.chainId, table.taskId, table.periodStartUs).nullsNotDistinct()],
);
