import { sql } from 'drizzle-orm';
import { bigint, date, index, jsonb, pgEnum, pgTable, unique, uuid } from 'drizzle-orm/pg-core';
import type { ServiceUserId } from '../../domain/ids.js';
import { bytes, timestampUs } from '../columns.js';
import { questChains, questTasks } from './quest-chains.js';
import { users } from './users.js';

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
    userId: uuid('user_id')
      .$type<ServiceUserId>()
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
    /**
     * What the claim cost the budget (core/rewards/claim-reward.ts: a box's drawn prize value, else the reward's value,
     * else 0), as the float8's 8 bytes (float8send): btree cannot deduplicate a float8 key (0 and -0 are equal with
     * different bytes), it can these, so a chain's claims per reward, day and value sit in a few posting lists.
     */
    valueBits: bytes('value_bits')
      .notNull()
      .generatedAlwaysAs(sql`float8send(coalesce((reward->'prize'->>'value')::float8, (reward->>'value')::float8, 0))`),
    /** claimed_at's day in the chain's time zone (YYYY-MM-DD), written with the claim (claimedDayOf): the chain stats' daily claims. */
    claimedDay: date('claimed_day').notNull(),
    /** A task claim: the completion claimed (event, timestamp). The walk keeps the task completed from there (a hold, docs/reversals.md). */
    completedEventId: uuid('completed_event_id'),
    completedAt: timestampUs('completed_at', { precision: 6 }),
    /** Set while the claimed completion no longer stands on events that count (the reward is kept, marked reversed). */
    reversedAt: timestampUs('reversed_at', { precision: 3 }),
    /** The run of a repeating chain claimed from (its first instant, epoch µs); 0 in a chain that does not repeat. */
    runStartUs: bigint('period_start_us', { mode: 'bigint' }).notNull().default(0n),
  },
  (table) => [
    unique('reward_claims_once').on(table.userId, table.chainId, table.taskId, table.runStartUs).nullsNotDistinct(),
    // The chain stats (0014): a chain's claims per reward, day and value, and which were reversed, in one index-only pass.
    index('reward_claims_chain_task_day_idx').on(
      table.chainId,
      table.taskId,
      table.claimedDay,
      table.valueBits,
      table.reversedAt,
    ),
  ],
);
