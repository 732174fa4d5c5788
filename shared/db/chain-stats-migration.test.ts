import { describe, expect, it } from 'vitest';
import { statsColumnsAdrift } from '../testing/chain-stats-rows.js';
import { useDatabaseBeforeMigration } from '../testing/database-before-migration.js';
import { createDatabase } from './client.js';
import { migrateWithLock } from './migrate.js';

const before = useDatabaseBeforeMigration('0014', 'stats-columns-migration');
const { migrateToBefore } = before;

describe('0014_campaign_stats_at_write on a populated database', () => {
  it("fills each row's stats columns from what they derive from, and swaps the stats indexes", async () => {
    await migrateToBefore();
    const client = before.client;
    const [platform] = await client<{ id: string }[]>`insert into providers (type, name) values ('platform', 'p') returning id`;
    const [advertiser] = await client<
      { id: string }[]
    >`insert into providers (type, name) values ('advertiser', 'a') returning id`;
    // Registered before the chain's start (joins at the start) and after it (joins at registration).
    const [early] = await client<
      { id: string }[]
    >`insert into users (platform_id, platform_user_id, created_at) values (${platform!.id}, 'early', '2026-01-01T00:00:00Z') returning id`;
    const [later] = await client<
      { id: string }[]
    >`insert into users (platform_id, platform_user_id, created_at) values (${platform!.id}, 'later', '2026-03-10T12:00:00.250Z') returning id`;
    const [chain] = await client<{ id: string }[]>`
      insert into quest_chains (platform_id, advertiser_id, name, start_date, end_date, timezone)
      values (${platform!.id}, ${advertiser!.id}, 'c', '2026-03-01T00:00:00Z', '2027-01-01T00:00:00Z', 'America/New_York') returning id`;
    const [task] = await client<{ id: string }[]>`
      insert into quest_tasks (chain_id, sequence_number, name, condition_event_type, reward_type, reward_name, reward_value)
      values (${chain!.id}, 1, 't', 'trade', 'points', 'r', 1) returning id`;
    // A run of a repeating chain (its start in µs) joins at the run's start.
    const run = BigInt(Date.parse('2026-04-01T00:00:00Z')) * 1000n;
    await client`
      insert into task_completions (user_id, task_id, chain_id, event_id, completed_at, period_start_us) values
        (${early!.id}, ${task!.id}, ${chain!.id}, gen_random_uuid(), '2026-03-02T00:00:00.000001Z', 0),
        (${later!.id}, ${task!.id}, ${chain!.id}, gen_random_uuid(), '2026-03-11T00:00:00Z', 0),
        (${later!.id}, ${task!.id}, ${chain!.id}, gen_random_uuid(), '2026-04-01T06:00:00Z', ${run.toString()})`;
    await client`
      insert into chain_progress (user_id, chain_id, completed_tasks, total_tasks, completed_at, period_start_us) values
        (${early!.id}, ${chain!.id}, 1, 1, '2026-03-02T00:00:00.000001Z', 0),
        (${later!.id}, ${chain!.id}, 1, 1, '2026-03-11T00:00:00Z', 0),
        (${later!.id}, ${chain!.id}, 1, 1, '2026-04-01T06:00:00Z', ${run.toString()})`;
    // 02:30 UTC is the evening before in New York.
    await client`
      insert into reward_claims (user_id, kind, chain_id, task_id, reward, claimed_at) values
        (${early!.id}, 'task', ${chain!.id}, ${task!.id}, ${JSON.stringify({ type: 'points', name: 'r', value: 1 })}::jsonb, '2026-03-05T02:30:00Z'),
        (${later!.id}, 'chain', ${chain!.id}, null, ${JSON.stringify({ type: 'mystery_box', name: 'b', value: 25, prize: { prize_id: 's', name: 's', value: 5 } })}::jsonb, '2026-03-12T12:00:00Z')`;

    await migrateWithLock(before.url);

    const completions = await client<
      { since: string }[]
    >`select since_joined_us::text as since from task_completions order by completed_at`;
    expect(completions.map((row) => row.since)).toEqual([
      String(86_400_000_000 + 1),
      String((Date.parse('2026-03-11T00:00:00Z') - Date.parse('2026-03-10T12:00:00.250Z')) * 1000),
      String(6 * 3_600_000_000),
    ]);
    const walks = await client<
      { first: string }[]
    >`select first_completed_at::text as first from chain_progress order by completed_at`;
    expect(walks.map((row) => row.first)).toEqual([
      '2026-03-02 00:00:00.000001+00',
      '2026-03-11 00:00:00+00',
      '2026-04-01 06:00:00+00',
    ]);
    const claims = await client<
      { bits: Buffer; day: string }[]
    >`select value_bits as bits, claimed_day::text as day from reward_claims order by claimed_at`;
    expect(claims.map((claim) => [claim.bits.readDoubleBE(0), claim.day])).toEqual([
      [1, '2026-03-04'],
      [5, '2026-03-12'],
    ]);
    const service = createDatabase({ url: before.url, poolSize: 1 });
    try {
      expect(await statsColumnsAdrift(service.db)).toEqual([]);
    } finally {
      await service.close();
    }
    const indexes = await client<{ name: string }[]>`
      select indexname as name from pg_indexes where tablename in ('task_completions', 'chain_progress', 'reward_claims') and indexname not like '%pk' order by 1`;
    expect(indexes.map((row) => row.name)).toEqual([
      'chain_progress_chain_completed_idx',
      'chain_progress_chain_started_idx',
      'reward_claims_chain_task_day_idx',
      'reward_claims_once',
      'reward_claims_pkey',
      'task_completions_chain_task_idx',
      'task_completions_chain_task_wait_idx',
    ]);
  });
});
