import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Secrets the service generates for itself (e.g. the live-token signing key) so replicas agree with no configuration. */
export const serviceSecrets = pgTable('service_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
});
