import { describe, expect, it } from 'vitest';
import { senderUserId } from '../domain/ids.js';
import { useDatabaseBeforeMigration } from '../testing/database-before-migration.js';
import { createDatabase } from './client.js';
import { insertOrFindEvents } from './event-store.js';
import { migrateWithLock } from './migrate.js';

const before = useDatabaseBeforeMigration('0005', 'partition-migration');
const { migrateToBefore } = before;

describe('0005_partitioned_events on a populated database', () => {
  it('moves every event into its month partition (far ones into the default), keeps ids, pending markers and completions', async () => {
    await migrateToBefore();
    const client = before.client;
    const [platform] = await client<{ id: string }[]>`insert into providers (type, name) values ('platform', 'p') returning id`;
    const [advertiser] = await client<
      { id: string }[]
    >`insert into providers (type, name) values ('advertiser', 'a') returning id`;
    const stamps = ['2025-06-15T10:00:00Z', '2025-06-20T10:00:00Z', '2025-08-01T00:00:00Z', '1990-01-01T00:00:00Z'];
    const stored = await client<{ id: string; occurred: string }[]>`
      insert into events (provider_id, user_id, event_type, occurred_at)
      select ${platform!.id}, 'u1', 'trade', t::timestamptz from unnest(${stamps}::text[]) as t
      returning id, occurred_at::text as occurred`;
    const [first, second] = stored;
    await client`insert into pending_events (event_id, provider_id) values (${second!.id}, ${platform!.id})`;
    const [user] = await client<
      { id: string }[]
    >`insert into users (platform_id, platform_user_id) values (${platform!.id}, 'u1') returning id`;
    const [chain] = await client<{ id: string }[]>`
      insert into quest_chains (platform_id, advertiser_id, name, start_date, end_date)
      values (${platform!.id}, ${advertiser!.id}, 'c', '2025-01-01', '2026-01-01') returning id`;
    const [task] = await client<{ id: string }[]>`
      insert into quest_tasks (chain_id, sequence_number, name, condition_event_type, reward_type, reward_name, reward_value)
      values (${chain!.id}, 1, 't', 'trade', 'points', 'r', 1) returning id`;
    await client`
      insert into task_completions (user_id, task_id, chain_id, event_id, completed_at)
      values (${user!.id}, ${task!.id}, ${chain!.id}, ${first!.id}, '2025-06-15T10:00:00Z')`;

    await migrateWithLock(before.url);

    const rows = await client<
      { id: string; partition: string }[]
    >`select id, tableoid::regclass::text as partition from events order by occurred_at`;
    expect(rows.map((r) => r.id).sort()).toEqual(stored.map((s) => s.id).sort());
    expect(rows.map((r) => r.partition)).toEqual(['events_default', 'events_2025_06', 'events_2025_06', 'events_2025_08']);
    const [partitioned] = await client<{ kind: string }[]>`select relkind::text as kind from pg_class where relname = 'events'`;
    expect(partitioned!.kind).toBe('p');
    const [pending] = await client<
      { occurred: string }[]
    >`select occurred_at::text as occurred from pending_events where event_id = ${second!.id}`;
    expect(pending!.occurred).toBe(second!.occurred);
    const [completion] = await client<{ eventId: string }[]>`select event_id as "eventId" from task_completions`;
    expect(completion!.eventId).toBe(first!.id);
    const keys =
      await client`select 1 from pg_constraint where conrelid = 'task_completions'::regclass and contype = 'f' and conname like '%event%'`;
    expect(keys).toHaveLength(0);
    // The current month's partition exists (the service stores today's events there, not in the default one).
    const now = new Date();
    const current = `events_${now.getUTCFullYear()}_${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    const [exists] = await client<{ found: boolean }[]>`select to_regclass(${current}) is not null as found`;
    expect(exists!.found).toBe(true);

    // And the dedup key still finds the moved rows.
    const service = createDatabase({ url: before.url, poolSize: 1 });
    try {
      const [again] = await insertOrFindEvents(service.db, [
        {
          providerId: platform!.id,
          userId: senderUserId('u1'),
          eventType: 'trade',
          occurredAt: BigInt(Date.parse(stamps[0]!)) * 1000n,
        },
      ]);
      expect(again).toMatchObject({ id: first!.id, inserted: false, processed: true });
    } finally {
      await service.close();
    }
  });
});
