import { relations, sql } from 'drizzle-orm';
import { check, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestampUs } from '../columns.js';
import { chainRewards, questChains } from './quest-chains.js';
import { rewardClaims } from './rewards.js';

/**
 * A mystery box's prize table (docs/mystery-boxes.md): the chain reward's
 * prizes in table order. `stock` null: unlimited; otherwise what is left,
 * never below 0 (the check makes that a database guarantee; the claim's
 * conditional update never tries).
 */
export const rewardPrizes = pgTable(
  'reward_prizes',
  {
    chainId: uuid('chain_id')
      .notNull()
      .references(() => questChains.id),
    prizeId: text('prize_id').notNull(),
    position: integer('position').notNull(),
    name: text('name').notNull(),
    value: doublePrecision('value'),
    weight: integer('weight').notNull(),
    stock: integer('stock'),
  },
  (table) => [
    primaryKey({ columns: [table.chainId, table.prizeId] }),
    uniqueIndex('reward_prizes_position_unique').on(table.chainId, table.position),
    check('reward_prizes_stock_not_negative', sql`${table.stock} >= 0`),
    check('reward_prizes_weight_positive', sql`${table.weight} > 0`),
  ],
);

/**
 * A chain's draw seeds: the current one (retired_at null, at most one per
 * chain) draws; its SHA-256 is published. A rotated seed is retired and from
 * then on revealed, with every seed of a chain that has ended.
 */
export const drawSeeds = pgTable(
  'draw_seeds',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    chainId: uuid('chain_id')
      .notNull()
      .references(() => questChains.id),
    /** 32 random bytes, hex. Secret until revealed. */
    serverSeed: text('server_seed').notNull(),
    seedHash: text('seed_hash').notNull(),
    createdAt: timestampUs('created_at', { precision: 3 }).notNull().default(sql`now()`),
    retiredAt: timestampUs('retired_at', { precision: 3 }),
  },
  (table) => [
    index('draw_seeds_chain_idx').on(table.chainId),
    uniqueIndex('draw_seeds_current_unique').on(table.chainId).where(sql`${table.retiredAt} is null`),
  ],
);

/** One draw: its inputs and outcome, kept with the claim it granted, so it can be recomputed once the seed is revealed. */
export const rewardDraws = pgTable(
  'reward_draws',
  {
    claimId: uuid('claim_id')
      .primaryKey()
      .references(() => rewardClaims.id),
    chainId: uuid('chain_id')
      .notNull()
      .references(() => questChains.id),
    seedId: uuid('seed_id')
      .notNull()
      .references(() => drawSeeds.id),
    /** The prizes in stock at the draw, in table order: [{prize_id, weight}]. */
    candidates: jsonb('candidates').$type<{ prize_id: string; weight: number }[]>().notNull(),
    digest: text('digest').notNull(),
    roll: integer('roll').notNull(),
    totalWeight: integer('total_weight').notNull(),
    prizeId: text('prize_id').notNull(),
    drawnAt: timestampUs('drawn_at', { precision: 3 }).notNull().default(sql`now()`),
  },
  // The chain stats count each prize's draws in one chain (0013).
  (table) => [index('reward_draws_chain_prize_idx').on(table.chainId, table.prizeId)],
);

export const rewardPrizesRelations = relations(rewardPrizes, ({ one }) => ({
  reward: one(chainRewards, { fields: [rewardPrizes.chainId], references: [chainRewards.chainId] }),
}));
export const drawSeedsRelations = relations(drawSeeds, ({ one }) => ({
  reward: one(chainRewards, { fields: [drawSeeds.chainId], references: [chainRewards.chainId] }),
}));
// The chain reward's relations live here, beside the tables they name, so no schema file imports another in a cycle.
export const chainRewardsRelations = relations(chainRewards, ({ one, many }) => ({
  chain: one(questChains, { fields: [chainRewards.chainId], references: [questChains.id] }),
  prizes: many(rewardPrizes),
  drawSeeds: many(drawSeeds),
}));
