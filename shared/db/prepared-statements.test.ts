import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestData } from '../testing/test-data.js';
import { users } from './schema/index.js';
import { withTransaction } from './transaction.js';

// drizzle asks postgres.js not to prepare; without preparingClient every
// parameterised statement costs an extra round trip and a fresh plan.

const { database, platform } = useTestData('prepared_statements');

describe('statements through the data layer', () => {
  it('are prepared once per connection and reused, in a transaction too', async () => {
    const prepared = await withTransaction(database.db, async (tx) => {
      for (let i = 0; i < 3; i++) await tx.select({ id: users.id }).from(users).where(eq(users.platformId, platform.id));
      return tx.execute<{ statement: string }>(
        sql`select statement from pg_prepared_statements where statement like '%from "users"%'`,
      );
    });
    // Once, whatever the number of calls: the same text is not prepared again.
    expect(prepared.map((row) => row.statement)).toEqual(['select "id" from "users" where "users"."platform_id" = $1']);
  });
});
