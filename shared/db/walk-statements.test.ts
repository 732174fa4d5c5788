import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceUserId } from '../domain/ids.js';
import { createTestChain, createTestUser } from '../testing/chains.js';
import { useTestData } from '../testing/test-data.js';
import type { Database } from './client.js';
import { loadWalks } from './progress-store.js';
import * as schema from './schema/index.js';

// The matcher loads every walk of a batch's users (~500 in a production-like
// batch): that read must stay an index range per user, whatever the size of
// the progress tables. Joined on (user, chain), the planner would hash the
// whole of task_completions for every batch, a cost that grows with every
// user's progress (docs/performance.md).

const { database, platform, advertiser } = useTestData('walk-statements');
// Enough rows that a scan of a whole table costs more than the index ranges (as in production).
const USERS = 20_000;
let client: postgres.Sql;
let recorded: { query: string; params: unknown[] }[] = [];
let logged: Database;
let someUsers: ServiceUserId[] = [];
let chain: Awaited<ReturnType<typeof createTestChain>>;

beforeAll(async () => {
  client = postgres(database.url, { max: 2, onnotice: () => {}, connection: { TimeZone: 'UTC' } });
  logged = drizzle(client, {
    schema,
    logger: { logQuery: (query, params) => void recorded.push({ query, params }) },
  }) as unknown as Database;
  chain = await createTestChain(database.db, platform.id, advertiser.id);
  const other = await createTestChain(database.db, platform.id, advertiser.id);
  // Many users with progress in two chains, each task completed: tables far larger than one batch's share.
  await database.db.execute(
    sql`insert into users (platform_id, platform_user_id) select ${platform.id}, 'bulk-' || g from generate_series(1, ${USERS}) g`,
  );
  for (const { id, taskIds } of [chain, other]) {
    await database.db.execute(sql`
      insert into chain_progress (user_id, chain_id, completed_tasks, total_tasks, mark_us, mark_event_id)
      select u.id, ${id}, ${taskIds.length}, ${taskIds.length}, 1, gen_random_uuid() from users u`);
    for (const taskId of taskIds) {
      await database.db.execute(sql`
        insert into task_completions (user_id, task_id, chain_id, event_id, completed_at, since_joined_us)
        select u.id, ${taskId}, ${id}, gen_random_uuid(), now(), 0 from users u`);
    }
  }
  await database.db.execute(sql`analyze`);
  const rows = await database.db.execute<{ id: ServiceUserId }>(sql`select id from users order by platform_user_id limit 500`);
  someUsers = rows.map((row) => row.id);
});

afterAll(async () => {
  await client.end();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** The statement's plan: the tables it scans whole, and its join nodes. */
async function planOf(statement: { query: string; params: unknown[] }): Promise<{ scannedWhole: string[]; joins: string[] }> {
  const [row] = await client.unsafe(`explain (format json) ${statement.query}`, statement.params as never[]);
  const plan = { scannedWhole: [] as string[], joins: [] as string[] };
  const visit = (node: PlanNode) => {
    if (node['Node Type'] === 'Seq Scan' && node['Relation Name']) plan.scannedWhole.push(node['Relation Name']);
    if (/Join|Nested Loop/.test(node['Node Type'])) plan.joins.push(node['Node Type']);
    node.Plans?.forEach(visit);
  };
  visit((row!['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan);
  return plan;
}

describe('loadWalks', () => {
  it("reads a batch's walks and completions each by user, with no join to plan as a hash of the whole table", async () => {
    recorded = [];
    await loadWalks(logged, someUsers);
    expect(recorded).toHaveLength(1);
    const plan = await planOf(recorded[0]!);
    // Whether a range or a whole scan is cheaper is the planner's call on this table's size (a
    // batch of 500 users is 2.5 % of it here, 1 % in the world bench, where it took the ranges);
    // what must not come back is the join, planned as a hash of everyone's completions.
    expect(plan.joins).toEqual([]);
  });

  it('answers each walk with its mark, generation and every completion, and nothing for a user without progress', async () => {
    const fresh = await createTestUser(database.db, platform.id, 'no-progress');
    const walks = await loadWalks(database.db, [someUsers[0]!, fresh]);
    expect(walks).toHaveLength(2);
    const walk = walks.find((w) => w.chainId === chain.id)!;
    expect(walk).toMatchObject({ userId: someUsers[0], mark: { occurredUs: 1n }, generation: 0 });
    expect([...walk.completions.keys()].sort()).toEqual([...chain.taskIds].sort());
    expect(walks.every((w) => w.userId === someUsers[0])).toBe(true);
  });
});
