import { describe, expect, it } from 'vitest';
import { useDatabaseBeforeMigration } from '../testing/database-before-migration.js';
import { migrateWithLock } from './migrate.js';

// 0016_points on a database with claims made before the ledger: each claim of a
// points reward is credited, a reversed one debited after it, and the balances
// agree with their entries (product rules §18.7).

const before = useDatabaseBeforeMigration('0016', 'points-migration');

describe('0016_points on a populated database', () => {
  it('credits the claims of points rewards made before it, debits the reversed ones, and adds them up', async () => {
    await before.migrateToBefore();
    const client = before.client;
    const [platform] = await client<{ id: string }[]>`insert into providers (type, name) values ('platform', 'p') returning id`;
    const [advertiser] = await client<
      { id: string }[]
    >`insert into providers (type, name) values ('advertiser', 'a') returning id`;
    const user = async (name: string) =>
      (
        await client<
          { id: string }[]
        >`insert into users (platform_id, platform_user_id) values (${platform!.id}, ${name}) returning id`
      )[0]!.id;
    const [alice, bob] = [await user('alice'), await user('bob')];
    const [chain] = await client<{ id: string }[]>`
      insert into quest_chains (platform_id, advertiser_id, name, start_date, end_date)
      values (${platform!.id}, ${advertiser!.id}, 'c', '2026-03-01T00:00:00Z', '2027-01-01T00:00:00Z') returning id`;
    const task = async (n: number) =>
      (
        await client<{ id: string }[]>`
        insert into quest_tasks (chain_id, sequence_number, name, condition_event_type, reward_type, reward_name, reward_value)
        values (${chain!.id}, ${n}, 't', 'trade', 'points', 'r', 1) returning id`
      )[0]!.id;
    const [t1, t2, t3] = [await task(1), await task(2), await task(3)];
    const reward = (value: unknown, type = 'points') => JSON.stringify({ type, name: 'r', value });
    await client`
      insert into reward_claims (user_id, kind, chain_id, task_id, reward, claimed_at, claimed_day, reversed_at) values
        (${alice}, 'task', ${chain!.id}, ${t1}, ${reward(10)}::jsonb, '2026-03-05T00:00:00Z', '2026-03-05', null),
        (${alice}, 'task', ${chain!.id}, ${t2}, ${reward(20.7)}::jsonb, '2026-03-06T00:00:00Z', '2026-03-06', '2026-03-08T00:00:00Z'),
        (${alice}, 'task', ${chain!.id}, ${t3}, ${reward(5)}::jsonb, '2026-03-07T00:00:00Z', '2026-03-07', null),
        (${alice}, 'chain', ${chain!.id}, null, ${reward(50, 'mystery_box')}::jsonb, '2026-03-09T00:00:00Z', '2026-03-09', null),
        (${bob}, 'task', ${chain!.id}, ${t1}, ${reward(10)}::jsonb, '2026-03-05T00:00:00Z', '2026-03-05', '2026-03-06T00:00:00Z')`;

    await migrateWithLock(before.url);

    const entries = await client<{ user_id: string; seq: string; kind: string; amount: string; balance_after: string }[]>`
      select user_id, seq::text, kind::text, amount::text, balance_after::text from point_entries order by user_id, seq`;
    const of = (userId: string) =>
      entries
        .filter((entry) => entry.user_id === userId)
        .map((entry) => [entry.seq, entry.kind, entry.amount, entry.balance_after]);
    expect(of(alice)).toEqual([
      ['1', 'claim', '10', '10'],
      ['2', 'claim', '20', '30'],
      ['3', 'claim', '5', '35'],
      ['4', 'reversal', '-20', '15'],
    ]);
    expect(of(bob)).toEqual([
      ['1', 'claim', '10', '10'],
      ['2', 'reversal', '-10', '0'],
    ]);
    const balances = await client<{ user_id: string; balance: string; earned: string; reversed: string; entries: string }[]>`
      select user_id, balance::text, earned::text, reversed::text, entries::text from point_balances`;
    expect(balances.find((row) => row.user_id === alice)).toMatchObject({
      balance: '15',
      earned: '35',
      reversed: '20',
      entries: '4',
    });
    expect(balances.find((row) => row.user_id === bob)).toMatchObject({
      balance: '0',
      earned: '10',
      reversed: '10',
      entries: '2',
    });
  });
});
