import { sql } from 'drizzle-orm';
import { bigint, check, index, pgEnum, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core';
import type { ServiceUserId } from '../../domain/ids.js';
import { timestampUs } from '../columns.js';
import { questChains, questTasks } from './quest-chains.js';
import { rewardClaims } from './rewards.js';
import { users } from './users.js';

// Points (product rules §18, docs/points.md), migration 0016.

export const pointEntryKind = pgEnum('point_entry_kind', ['claim', 'spend', 'reversal']);

/**
 * A user's balance and its figures, moved with every entry in the entry's
 * transaction. Its row lock orders the user's ledger: entries are written
 * only under it (shared/db/points-store.ts), so `balance_after` and `seq`
 * follow commit order and concurrent spends never overdraw.
 */
export const pointBalances = pgTable(
  'point_balances',
  {
    userId: uuid('user_id')
      .$type<ServiceUserId>()
      .primaryKey()
      .references(() => users.id),
    balance: bigint('balance', { mode: 'bigint' }).notNull().default(0n),
    /** Credited by claims. */
    earned: bigint('earned', { mode: 'bigint' }).notNull().default(0n),
    /** Taken by spends. */
    spent: bigint('spent', { mode: 'bigint' }).notNull().default(0n),
    /** Debited by reversals, less what restored claims credited back. */
    reversed: bigint('reversed', { mode: 'bigint' }).notNull().default(0n),
    /** How many entries the user has: the seq of the last one. */
    entries: bigint('entries', { mode: 'bigint' }).notNull().default(0n),
  },
  (table) => [check('point_balances_sum_check', sql`${table.balance} = ${table.earned} - ${table.spent} - ${table.reversed}`)],
);

/** A spend, once per (user, idempotency key): a repeat of the key answers this row. */
export const pointSpends = pgTable(
  'point_spends',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    userId: uuid('user_id')
      .$type<ServiceUserId>()
      .notNull()
      .references(() => users.id),
    idempotencyKey: text('idempotency_key').notNull(),
    amount: bigint('amount', { mode: 'bigint' }).notNull(),
    reason: text('reason'),
    /** The balance the spend left: what a repeat of its key answers. */
    balanceAfter: bigint('balance_after', { mode: 'bigint' }).notNull(),
    createdAt: timestampUs('created_at', { precision: 3 }).notNull().default(sql`now()`),
  },
  (table) => [
    unique('point_spends_key_once').on(table.userId, table.idempotencyKey),
    check('point_spends_amount_check', sql`${table.amount} > 0`),
    index('point_spends_user_idx').on(table.userId),
  ],
);

/**
 * The ledger, append-only (a trigger of 0016 refuses every update; only a
 * test mode reset deletes, with the test user). A user's entries are numbered
 * by `seq` 1, 2, 3, …; their amounts add up to the balance.
 */
export const pointEntries = pgTable(
  'point_entries',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    userId: uuid('user_id')
      .$type<ServiceUserId>()
      .notNull()
      .references(() => users.id),
    seq: bigint('seq', { mode: 'bigint' }).notNull(),
    kind: pointEntryKind('kind').notNull(),
    /** Signed: a claim's credit and a restored claim's reversal are positive, a spend and a reversal's debit negative. */
    amount: bigint('amount', { mode: 'bigint' }).notNull(),
    balanceAfter: bigint('balance_after', { mode: 'bigint' }).notNull(),
    claimId: uuid('claim_id').references(() => rewardClaims.id),
    spendId: uuid('spend_id').references(() => pointSpends.id),
    questChainId: uuid('quest_chain_id').references(() => questChains.id),
    createdAt: timestampUs('created_at', { precision: 3 }).notNull().default(sql`now()`),
  },
  (table) => [
    unique('point_entries_user_seq_unique').on(table.userId, table.seq),
    check(
      'point_entries_source_check',
      sql`(${table.kind} = 'spend') = (${table.spendId} IS NOT NULL) AND (${table.kind} = 'spend') = (${table.claimId} IS NULL)`,
    ),
    index('point_entries_chain_idx').on(table.questChainId).where(sql`${table.questChainId} IS NOT NULL`),
    index('point_entries_claim_idx').on(table.claimId).where(sql`${table.claimId} IS NOT NULL`),
    // Leaderboards (0017, §19): a period's credits by time, with their users (INCLUDE user_id), for a rebuild.
    index('point_entries_credits_idx').on(table.createdAt).where(sql`${table.kind} = 'claim'`),
  ],
);

/**
 * A reward earned in a chain with `auto_claim`, waiting for the worker to
 * claim it from `due_at` (its completion plus the chain's reward hold).
 * Written in the matcher's transaction, deleted once the claim is made or
 * refused for good (core/rewards/auto-claim.ts).
 */
export const autoClaims = pgTable(
  'auto_claims',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    userId: uuid('user_id')
      .$type<ServiceUserId>()
      .notNull()
      .references(() => users.id),
    chainId: uuid('chain_id')
      .notNull()
      .references(() => questChains.id),
    /** Null: the chain reward. */
    taskId: uuid('task_id').references(() => questTasks.id),
    runStartUs: bigint('period_start_us', { mode: 'bigint' }).notNull().default(0n),
    dueAt: timestampUs('due_at', { precision: 6 }).notNull(),
    createdAt: timestampUs('created_at', { precision: 3 }).notNull().default(sql`now()`),
  },
  (table) => [
    unique('auto_claims_once').on(table.userId, table.chainId, table.taskId, table.runStartUs).nullsNotDistinct(),
    index('auto_claims_due_idx').on(table.dueAt),
  ],
);
