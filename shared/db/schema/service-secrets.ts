import { sql } from 'drizzle-orm';
import { pgTable, text } from 'drizzle-orm/pg-core';
import { timestampUs } from '../columns.js';

/** Secrets the service generates for itself (e.g. the live-token signing key) so replicas agree with no configuration. */
export const serviceSecrets = pgTable('service_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: timestampUs('created_at', { precision: 3 }).notNull().default(sql`now()`),
});
