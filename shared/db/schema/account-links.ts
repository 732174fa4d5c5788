import { sql } from 'drizzle-orm';
import { index, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core';
import type { SenderUserId, ServiceUserId } from '../../domain/ids.js';
import { timestampUs } from '../columns.js';
import { providers } from './providers.js';
import { users } from './users.js';

export const accountLinks = pgTable(
  'account_links',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    userId: uuid('user_id')
      .$type<ServiceUserId>()
      .notNull()
      .references(() => users.id),
    platformId: uuid('platform_id')
      .notNull()
      .references(() => providers.id),
    advertiserId: uuid('advertiser_id')
      .notNull()
      .references(() => providers.id),
    advertiserUserId: text('advertiser_user_id').$type<SenderUserId>().notNull(),
    linkedAt: timestampUs('linked_at', { precision: 3 }).notNull().default(sql`now()`),
  },
  (table) => [
    // One advertiser user id per (user, advertiser), and one user per (platform, advertiser user id).
    unique('account_links_user_advertiser_unique').on(table.userId, table.advertiserId),
    unique('account_links_platform_advertiser_user_unique').on(table.platformId, table.advertiserId, table.advertiserUserId),
    index('account_links_advertiser_user_idx').on(table.advertiserId, table.advertiserUserId),
  ],
);

/** Single-use connection tokens; only the SHA-256 of the token is stored. */
export const linkTokens = pgTable('link_tokens', {
  tokenHash: text('token_hash').primaryKey(),
  userId: uuid('user_id')
    .$type<ServiceUserId>()
    .notNull()
    .references(() => users.id),
  platformId: uuid('platform_id')
    .notNull()
    .references(() => providers.id),
  advertiserId: uuid('advertiser_id')
    .notNull()
    .references(() => providers.id),
  expiresAt: timestampUs('expires_at', { precision: 3 }).notNull(),
  createdAt: timestampUs('created_at', { precision: 3 }).notNull().default(sql`now()`),
  usedAt: timestampUs('used_at', { precision: 3 }),
  usedAdvertiserUserId: text('used_advertiser_user_id').$type<SenderUserId>(),
  linkId: uuid('link_id').references(() => accountLinks.id),
});
