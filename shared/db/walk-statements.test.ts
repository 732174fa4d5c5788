import { drizzle } from 'drizzle-orm/postgres-js';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestChain, createTestUser } from '../testing/chains.js';
import { useTestData } from '../testing/test-data.js';
import type { ServiceUserId } from '../domain/ids.js';
import type { Database } from './client.js';
import { loadWalks } from './progress-store.js';
import * as schema from './schema/index.js';

// The matcher loads the walks a batch can change (~500 users in a
// production-like batch): that read must stay a probe inside each user's
// primary-key range, whatever the size of the progress tables. Joined on
// (user, chain), the planner hashed the whole of task_completions for every
// batch (12 ms a batch in the world bench, and growing with every user's
// progress; docs/performance.md).

const { database, platform, advertiser } = useTestData('walk-statements');
// Enough rows that a scan of a whole table costs more than the index ranges (as in production).
const USERS = 20_000;
let client: postgres.Sql;
let recorded: { query: string; params: unknown[] }[] = [];
let logged: Database;
let someUsers: ServiceUserId[] = [];
let chain: Awaited<ReturnType<typeof createTestChain>>;
let other: Awaited<ReturnType<typeof createTestChain>>;

beforeAll(async () => {
  client = postgres(database.url, { max: 2, onnotice: () => {}, connection: { TimeZone: 'UTC' } });
  logged = drizzle(client, { schema, logger: { logQuery: (query, params) => void recorded.push({ query, params }) } }) as unknown as Database;
  chain = await createTestChain(database.db, platform.id, advertiser.id);
  other = await createTestChain(database.db, platform.id, advertiser.id);
  // Many users with progress in two chains, each task completed: tables far larger than one batch's share.
  await database.db.execute(sql`insert into users (platform_id, platform_user_id) select ${platform.id}, 'bulk-' || g from generate_series(1, ${USERS}) g`);
  for (const { id, taskIds } of [chain, other]) {
    await database.db.execute(sql`
      insert into chain_progress (user_id, chain_id, completed_tasks, total_tasks, mark_us, mark_event_id)
      select u.id, ${id}, ${taskIds.length}, ${taskIds.length}, 1, gen_random_uuid() from users u`);
    for (const taskId of taskIds) {
      await database.db.execute(sql`
        insert into task_completions (user_id, task_id, chain_id, event_id, completed_at)
        select u.id, ${taskId}, ${id}, gen_random_uuid(), now() from users u`);
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

const wantedOf = (userIds: readonly ServiceUserId[], chainIds: readonly string[]) => new Map(userIds.map((id) => [id, [...chainIds]]));

describe('loadWalks', () => {
  it("reads a batch's walks and completions by probes into each user's range, with no hash over a whole table", async () => {
    recorded = [];
    await loadWalks(logged, wantedOf(someUsers, [chain.id]));
    expect(recorded).toHaveLength(1);
    const plan = await planOf(recorded[0]!);
    // What must not come back is a join planned as a hash (or a merge) of everyone's
    // completions or walks, or a scan of either table whole; the lateral probes are nested loops.
    expect(plan.joins.filter((join) => join !== 'Nested Loop')).toEqual([]);
    expect(plan.scannedWhole.filter((table) => table === 'task_completions' || table === 'chain_progress')).toEqual([]);
  });

  it('answers each wanted walk with its mark, generation and every completion, nothing for a user without progress, and no other chain', async () => {
    const fresh = await createTestUser(database.db, platform.id, 'no-progress');
    const walks = await loadWalks(database.db, wantedOf([someUsers[0]!, fresh], [chain.id]));
    expect(walks).toHaveLength(1);
    const [walk] = walks;
    expect(walk).toMatchObject({ userId: someUsers[0], chainId: chain.id, mark: { occurredUs: 1n }, generation: 0 });
    expect([...walk!.completions.keys()].sort()).toEqual([...chain.taskIds].sort());
    // Both chains when both are wanted.
    const both = await loadWalks(database.db, wantedOf([someUsers[1]!], [chain.id, other.id]));
    expect(both.map((w) => w.chainId).sort()).toEqual([chain.id, other.id].sort());
    expect(both.every((w) => w.completions.size > 0 && w.userId === someUsers[1])).toBe(true);
  });
});
