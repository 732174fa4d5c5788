import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../shared/testing/database.js';
import { createTestProvider, type TestProvider } from '../../shared/testing/fixtures.js';
import { matchBatch } from './match-batch.js';

// BullMQ delivers at least once: a job whose lock lapsed (a worker stalled
// under load, not dead) runs again while the first run is still going, and the
// reconciler may add a page of events that is also still queued. Each event
// must still be matched exactly once.

let database: TestDatabase;
let platform: TestProvider;

beforeAll(async () => {
  database = await createTestDatabase('process_redelivery');
  platform = await createTestProvider(database.db, 'platform');
});
afterAll(async () => {
  await database.drop();
});

async function storeEvent(userId: string, second: number): Promise<string> {
  const [row] = await database.sql<{ id: string }[]>`
    with inserted as (
      insert into events (provider_id, user_id, event_type, occurred_at)
      values (${platform.id}, ${userId}, 'deposit', ${`2026-03-01T10:00:${String(second).padStart(2, '0')}Z`})
      returning id, provider_id, received_at)
    insert into pending_events (event_id, provider_id, received_at) select id, provider_id, received_at from inserted
    returning event_id as id`;
  return row!.id;
}

describe('matchBatch under concurrent redelivery', () => {
  it('processes an event once when several runs of its job overlap', async () => {
    await database.sql`insert into users (platform_id, platform_user_id) values (${platform.id}, 'registered')`;
    for (const [round, userId] of ['registered', 'unregistered', 'registered', 'unregistered'].entries()) {
      const eventId = await storeEvent(userId, round);
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => matchBatch({ db: database.db }, { eventIds: [eventId], evaluateUserIds: [] })));
      expect(outcomes.filter((o) => o.matched.length === 1), `round ${round}`).toHaveLength(1);
      expect(outcomes.filter((o) => o.matched.length === 0)).toHaveLength(5);
    }
  });

  it('matches nothing for an event that does not exist', async () => {
    expect((await matchBatch({ db: database.db }, { eventIds: ['00000000-0000-4000-8000-000000000000'], evaluateUserIds: [] })).matched).toEqual([]);
  });
});
