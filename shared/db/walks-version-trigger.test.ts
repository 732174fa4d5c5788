import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceUserId } from '../domain/ids.js';
import { createTestChain } from '../testing/chains.js';
import { useTestData } from '../testing/test-data.js';
import { idArray } from './sql-fragments.js';

// The walks version triggers (drizzle/0015, 0018) run with every matching
// statement that writes progress. Their update of users must find the
// changed users by primary key whatever the statistics say: in a session's
// generic plan (the writer unknown) a join from the transition table
// scanned all of users for every statement, up to 100 ms each in the
// bench's world (docs/performance.md).

const { database, platform, advertiser } = useTestData('walks-version-trigger');
// Users that never matched anything, analyzed: the statistics where the generic plan went wrong.
const USERS = 5_400;
const WRITTEN = 46;
let chainId: string;
let written: ServiceUserId[] = [];

beforeAll(async () => {
  chainId = (await createTestChain(database.db, platform.id, advertiser.id)).id;
  await database.db.execute(
    sql`insert into users (platform_id, platform_user_id) select ${platform.id}, 'bulk-' || g from generate_series(1, ${USERS}) g`,
  );
  await database.db.execute(sql`analyze users`);
  const rows = await database.db.execute<{ id: ServiceUserId }>(sql`select id from users order by id limit ${WRITTEN}`);
  written = rows.map((row) => row.id);
});

describe('the walks version trigger', () => {
  it('stamps the users whose progress a statement wrote by key, never by scanning users, in a generic plan', async () => {
    const outcome = await database.db.transaction(async (tx) => {
      await tx.execute(sql`set local plan_cache_mode = force_generic_plan`);
      // Twice: new rows (the insert trigger), then the same rows again (the upsert's update trigger).
      for (const markUs of [1, 2]) {
        await tx.execute(sql`
          insert into chain_progress (user_id, chain_id, completed_tasks, total_tasks, mark_us, mark_event_id)
          select u, ${chainId}, 0, 3, ${markUs}, gen_random_uuid() from unnest(${idArray(written)}) u
          on conflict (user_id, chain_id, period_start_us) do update set mark_us = excluded.mark_us`);
      }
      const [scans] = await tx.execute<{ seqScans: number }>(
        sql`select seq_scan::int as "seqScans" from pg_stat_xact_user_tables where relname = 'users'`,
      );
      const [stamped] = await tx.execute<{ count: number }>(sql`
        select count(*)::int as count from users
        where id = any(${idArray(written)}) and walks_version = pg_current_xact_id()::text::bigint`);
      return { seqScans: scans!.seqScans, stamped: stamped!.count };
    });
    expect(outcome).toEqual({ seqScans: 0, stamped: WRITTEN });
  });
});
