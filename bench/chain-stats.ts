// `npm run bench:chain-stats [-- --participants N] [--runs N] [--keep]`: the chain
// stats read (docs/chain-stats.md) on one chain of 1,000,000 participants.
// Writes the chain's rows straight into a database of its own with set-based
// SQL (three tasks; all start, three in five do task 2, one in three finish;
// nine in ten claim what they completed; a mystery box with two prizes), then
// times readChainStats, prints each statement's plan (which index it uses) and
// the median, and drops the database. Figures go to docs/performance.md.
import { type SQL, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { readChainStats } from '../core/quest-chains/read-chain-stats.js';
import { chainStatsStatements } from '../shared/db/chain-stats-store.js';
import { createTestChain } from '../shared/testing/chains.js';
import { createTestDatabase } from '../shared/testing/database.js';
import { createTestProvider } from '../shared/testing/fixtures.js';

const argument = (name: string, fallback: number) => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
};
const PARTICIPANTS = argument('participants', 1_000_000);
const RUNS = argument('runs', 7);
// Leaves the database in place (its URL is printed), to try statements on it.
const KEEP = process.argv.includes('--keep');
const DAY_MS = 86_400_000;

const elapsed = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e6;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const database = await createTestDatabase('bench_chain_stats');
try {
  const { db } = database;
  const platform = await createTestProvider(db, 'platform');
  const advertiser = await createTestProvider(db, 'advertiser');
  const start = Date.now() - 30 * DAY_MS;
  const chain = await createTestChain(db, platform.id, advertiser.id, {
    start: new Date(start).toISOString(),
    end: new Date(start + 60 * DAY_MS).toISOString(),
    budget: 100_000_000,
    reward: {
      type: 'mystery_box',
      name: 'Box',
      value: 25,
      prizes: [
        { prize_id: 'small', name: 'Small', value: 5, weight: 9 },
        { prize_id: 'big', name: 'Big', value: 100, weight: 1 },
      ],
    },
  });
  const [task1, task2, task3] = chain.taskIds as [string, string, string];
  // Whole seconds, as a SQL literal: a parameter here would be typed integer after the `+`.
  const startSeconds = sql.raw(String(Math.floor(start / 1000)));

  let since = process.hrtime.bigint();
  // One transaction without the API's statement timeout: these statements write millions of rows.
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local statement_timeout = 0`);
    // One statement per table, each over generate_series: user i registers on day i % 28 and completes task k (k < steps(i)) some hours later.
    await tx.execute(sql`
      insert into users (id, platform_id, platform_user_id, created_at, needs_evaluation)
      select md5('u' || i)::uuid, ${platform.id}, 'bench-' || i, to_timestamp(${startSeconds} + (i % 28) * 86400 + (i % 997) * 60), false
      from generate_series(1, ${PARTICIPANTS}) i`);
    const steps = sql.raw(`(case when i % 3 = 0 then 3 when i % 5 < 3 then 2 else 1 end)`);
    // Users register after the chain's start, so each joins it at registration: task k is done k * 3600 * (1 + i % 17) s later.
    const completedAt = (k: SQL) =>
      sql`to_timestamp(${startSeconds} + (i % 28) * 86400 + (i % 997) * 60 + ${k} * 3600 * (1 + i % 17))`;
    await tx.execute(sql`
      insert into task_completions (user_id, task_id, chain_id, event_id, completed_at, since_joined_us)
      select md5('u' || i)::uuid, (array[${task1}::uuid, ${task2}::uuid, ${task3}::uuid])[k], ${chain.id}, md5('e' || i || '-' || k)::uuid,
             ${completedAt(sql`k`)}, k * 3600 * (1 + i % 17) * 1000000::bigint
      from generate_series(1, ${PARTICIPANTS}) i, generate_series(1, 3) k where k <= ${steps}`);
    await tx.execute(sql`
      insert into chain_progress (user_id, chain_id, completed_tasks, total_tasks, completed_at, first_completed_at, updated_at)
      select md5('u' || i)::uuid, ${chain.id}, ${steps}, 3, case when ${steps} = 3 then ${completedAt(sql`3`)} end, ${completedAt(sql`1`)}, now()
      from generate_series(1, ${PARTICIPANTS}) i`);
    // A claim's day is its time's in the chain's time zone, as the claim path writes it (reward-store.ts, claimedDayOf).
    const day = (at: SQL) => sql`((${at})::timestamptz(3) at time zone q.timezone)::date`;
    await tx.execute(sql`
      insert into reward_claims (user_id, kind, chain_id, task_id, reward, claimed_at, claimed_day)
      select tc.user_id, 'task', tc.chain_id, tc.task_id, jsonb_build_object('type', 'points', 'name', 'points', 'value', 10),
             tc.completed_at + interval '2 hours', ${day(sql`tc.completed_at + interval '2 hours'`)}
      from task_completions tc join quest_chains q on q.id = tc.chain_id
      where tc.chain_id = ${chain.id} and get_byte(decode(md5(tc.user_id::text), 'hex'), 0) < 230`);
    await tx.execute(sql`
      insert into reward_claims (user_id, kind, chain_id, task_id, reward, claimed_at, claimed_day)
      select cp.user_id, 'chain', cp.chain_id, null,
             jsonb_build_object('type', 'mystery_box', 'name', 'Box', 'value', 25, 'prize', jsonb_build_object('prize_id', 'small', 'name', 'Small', 'value', 5)),
             cp.completed_at + interval '3 hours', ${day(sql`cp.completed_at + interval '3 hours'`)}
      from chain_progress cp join quest_chains q on q.id = cp.chain_id
      where cp.chain_id = ${chain.id} and cp.completed_at is not null`);
    const [seed] = await tx.execute<{ id: string }>(
      sql`select id from draw_seeds where chain_id = ${chain.id} and retired_at is null`,
    );
    await tx.execute(sql`
      insert into reward_draws (claim_id, chain_id, seed_id, candidates, digest, roll, total_weight, prize_id)
      select id, chain_id, ${seed!.id}, '[]'::jsonb, '', 0, 10, 'small' from reward_claims where chain_id = ${chain.id} and task_id is null`);
  });
  const written = elapsed(since);
  since = process.hrtime.bigint();
  // As autovacuum would leave it: statistics, and the visibility map that lets the scans be index-only.
  const maintenance = postgres(database.url, { max: 1, onnotice: () => {} });
  await maintenance`set statement_timeout = 0`;
  await maintenance.unsafe(
    'vacuum analyze users, task_completions, chain_progress, reward_claims, reward_draws, chain_admissions',
  );
  await maintenance.end();
  const vacuumed = elapsed(since);
  const [sizes] = await db.execute<{ completions: number; claims: number }>(sql`
    select (select count(*) from task_completions)::int as completions, (select count(*) from reward_claims)::int as claims`);
  console.log(
    `wrote ${PARTICIPANTS.toLocaleString('en-US')} participants, ${sizes!.completions.toLocaleString('en-US')} completions, ${sizes!.claims.toLocaleString('en-US')} claims in ${(written / 1000).toFixed(1)} s (vacuum analyze ${(vacuumed / 1000).toFixed(1)} s)`,
  );

  // Which index each statement of the read uses (the statements themselves, from the store).
  for (const [name, statement] of chainStatsStatements({ id: chain.id, timezone: 'UTC' })) {
    const plan = await db.execute<{ 'QUERY PLAN': string }>(sql`explain (analyze, buffers, costs off, timing off) ${statement}`);
    console.log(`\n-- ${name}\n${plan.map((row) => row['QUERY PLAN']).join('\n')}`);
  }

  const times: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    since = process.hrtime.bigint();
    const stats = await readChainStats({ db, readDb: db }, { chainId: chain.id });
    times.push(elapsed(since));
    if (run === 0)
      console.log(
        `\nusers ${JSON.stringify(stats.users)}, tasks ${stats.tasks.map((task) => task.completedUsers).join(' / ')}, spent ${stats.budget.spent}, ${stats.daily.length} days`,
      );
  }
  console.log(
    `readChainStats over ${RUNS} runs: median ${median(times).toFixed(0)} ms, min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)} (${times.map((t) => t.toFixed(0)).join(', ')})`,
  );
} finally {
  if (KEEP) {
    console.log(`kept ${database.url}`);
    await database.close();
  } else {
    await database.drop();
  }
}
