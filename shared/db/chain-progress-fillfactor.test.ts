import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';

// drizzle/0019: chain_progress leaves room on its pages, so the matcher's rewrite of a walk's mark or
// tally (no indexed column changes) is a HOT update, with no new entry in the table's indexes.

const ROWS = 400;

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('chain-progress-fillfactor');
});
afterAll(async () => {
  await database?.drop();
});

describe('chain_progress pages', () => {
  it('keep room for a new version of their rows: rewriting every walk once is mostly HOT', async () => {
    const { db } = database;
    const hot = await db.transaction(async (tx) => {
      // One walk per run of a repeating chain: ROWS rows packed into fresh pages, as inserts fill them.
      await tx.execute(sql`
        with platform as (insert into providers (type, name) values ('platform', 'p') returning id),
             advertiser as (insert into providers (type, name) values ('advertiser', 'a') returning id),
             chain as (
               insert into quest_chains (platform_id, advertiser_id, name, start_date, end_date)
               select platform.id, advertiser.id, 'c', '2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z' from platform, advertiser
               returning id, platform_id),
             player as (insert into users (platform_id, platform_user_id) select platform_id, 'u' from chain returning id)
        insert into chain_progress (user_id, chain_id, completed_tasks, total_tasks, mark_us, period_start_us)
        select player.id, chain.id, 0, 3, 0, run from player, chain, generate_series(1, ${ROWS}::int) as run`);
      // A mark moved in every walk, as a batch of relevant events writes it; in the same transaction, so the
      // old versions are not yet dead and pruning cannot make room: only the pages' free space can.
      await tx.execute(sql`update chain_progress set mark_us = mark_us + 1`);
      const [row] = await tx.execute<{ updated: string; hot: string }>(sql`
        select pg_stat_get_xact_tuples_updated('chain_progress'::regclass) as updated,
               pg_stat_get_xact_tuples_hot_updated('chain_progress'::regclass) as hot`);
      expect(Number(row!.updated)).toBe(ROWS);
      return Number(row!.hot);
    });
    // With fillfactor 70 about 40 % of a page's rows find room (30 % free for 70 % filled); with pages
    // filled to the brim at most the last page's rows do (none, with the migration's fill set to 100).
    expect(hot / ROWS).toBeGreaterThan(0.3);
  });
});
