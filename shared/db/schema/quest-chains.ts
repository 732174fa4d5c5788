import { relations, sql } from 'drizzle-orm';
import { boolean, doublePrecision, index, integer, jsonb, pgEnum, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core';
import type { StreakCondition } from '../../domain/conditions.js';
import type { Recurrence } from '../../domain/recurrence.js';
import { timestampUs } from '../columns.js';
import { mode, providers } from './providers.js';

export const chainStatus = pgEnum('chain_status', ['draft', 'active', 'paused', 'ended']);

export const questChains = pgTable(
  'quest_chains',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    platformId: uuid('platform_id')
      .notNull()
      .references(() => providers.id),
    advertiserId: uuid('advertiser_id')
      .notNull()
      .references(() => providers.id),
    name: text('name').notNull(),
    description: text('description'),
    logoUrl: text('logo_url'),
    backgroundImageUrl: text('background_image_url'),
    startDate: timestampUs('start_date', { precision: 6 }).notNull(),
    endDate: timestampUs('end_date', { precision: 6 }).notNull(),
    status: chainStatus('status').notNull().default('active'),
    allowAnyOrder: boolean('allow_any_order').notNull().default(false),
    /** A reward becomes claimable this long after its completion (a refund window); 0: at once. */
    rewardHoldSeconds: integer('reward_hold_seconds').notNull().default(0),
    /** The most the chain's claims may add up to (sum of reward values); null: no limit (docs/budgets.md). */
    budget: doublePrecision('budget'),
    /** What its claims add up to so far, moved in each claim's transaction. */
    budgetSpent: doublePrecision('budget_spent').notNull().default(0),
    /** How many users may claim each of its rewards; null: no limit. */
    maxClaimsPerReward: integer('max_claims_per_reward'),
    /** How many users may complete the chain (each takes a place with their first completion); null: no limit. */
    maxCompletions: integer('max_completions'),
    /** The service claims each of the chain's rewards when it is earned (§18, core/rewards/auto-claim.ts). */
    autoClaim: boolean('auto_claim').notNull().default(false),
    /** Places taken so far (chain_admissions), moved by the matcher in the batch that admits. */
    admittedUsers: integer('admitted_users').notNull().default(0),
    /** `test`: the chain of test twins (platform_id and advertiser_id are theirs), matched for test credentials only (docs/test-mode.md). */
    mode: mode('mode').notNull().default('live'),
    /** IANA zone in which streak periods (days, weeks) are counted (docs/quest-language.md). */
    timezone: text('timezone').notNull().default('UTC'),
    /** A repeating chain: each day, week or month of it is a run of its own (docs/quest-language.md); null: one run. */
    recurrence: jsonb('recurrence').$type<Recurrence>(),
    createdAt: timestampUs('created_at', { precision: 3 }).notNull().default(sql`now()`),
    updatedAt: timestampUs('updated_at', { precision: 3 }).notNull().default(sql`now()`),
  },
  (table) => [index('quest_chains_platform_idx').on(table.platformId, table.status)],
);

export const questTasks = pgTable(
  'quest_tasks',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    chainId: uuid('chain_id')
      .notNull()
      .references(() => questChains.id),
    sequenceNumber: integer('sequence_number').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    conditionEventType: text('condition_event_type').notNull(),
    conditionMinAmount: doublePrecision('condition_min_amount'),
    conditionCurrency: text('condition_currency'),
    conditionAfterTimestamp: timestampUs('condition_after_timestamp', { precision: 6 }),
    conditionBeforeTimestamp: timestampUs('condition_before_timestamp', { precision: 6 }),
    /** Counted events needed (docs/quest-language.md); 1: a plain task. */
    conditionMinCount: integer('condition_min_count').notNull().default(1),
    /** The sum of the counted events' amounts needed; null: none. */
    conditionMinTotal: doublePrecision('condition_min_total'),
    /** Consecutive periods each holding a counted event; null: none. */
    conditionStreak: jsonb('condition_streak').$type<StreakCondition>(),
    rewardType: text('reward_type').notNull(),
    rewardName: text('reward_name').notNull(),
    rewardValue: doublePrecision('reward_value').notNull(),
    rewardImageUrls: jsonb('reward_image_urls').$type<string[]>(),
    /** Claims of this task's reward so far (max_claims_per_reward). */
    claimsCount: integer('claims_count').notNull().default(0),
  },
  (table) => [unique('quest_tasks_chain_sequence_unique').on(table.chainId, table.sequenceNumber)],
);

export const chainRewards = pgTable('chain_rewards', {
  id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
  chainId: uuid('chain_id')
    .notNull()
    .unique('chain_rewards_chain_unique')
    .references(() => questChains.id),
  type: text('type').notNull(),
  name: text('name').notNull(),
  value: doublePrecision('value'),
  imageUrls: jsonb('image_urls').$type<string[]>(),
  /** Claims of the chain reward so far (max_claims_per_reward). */
  claimsCount: integer('claims_count').notNull().default(0),
});

// Relations for the relational query API: a chain loads with its tasks and reward in one statement.
export const questChainsRelations = relations(questChains, ({ many, one }) => ({
  tasks: many(questTasks),
  reward: one(chainRewards),
}));
export const questTasksRelations = relations(questTasks, ({ one }) => ({
  chain: one(questChains, { fields: [questTasks.chainId], references: [questChains.id] }),
}));
// chainRewardsRelations: in mystery-boxes.ts, beside the prize tables it also names.
