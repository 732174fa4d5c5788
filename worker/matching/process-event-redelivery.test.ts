import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../shared/testing/database.js';
import { createTestProvider, type TestProvider } from '../../shared/testing/fixtures.js';
import { processEvent } from './process-event.js';

// BullMQ delivers at least once: a job whose lock lapsed (a worker stalled
// under load, not dead) runs again while the first run is still going. The
// event must still be processed exactly once.

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
    insert into events (provider_id, user_id, event_type, occurred_at)
    values (${platform.id}, ${userId}, 'deposit', ${`2026-03-01T10:00:${String(second).padStart(2, '0')}Z`})
    returning id`;
  return row!.id;
}

describe('processEvent under concurrent redelivery', () => {
  it('processes an event once when several runs of its job overlap', async () => {
    await database.sql`insert into users (platform_id, platform_user_id) values (${platform.id}, 'registered')`;
    for (const [round, userId] of ['registered', 'unregistered', 'registered', 'unregistered'].entries()) {
      const eventId = await storeEvent(userId, round);
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => processEvent(database.db, eventId)));
      expect(outcomes.filter((o) => o.kind === 'processed'), `round ${round}`).toHaveLength(1);
      expect(outcomes.filter((o) => o.kind === 'already-processed')).toHaveLength(5);
    }
  });

  it('answers missing for an event that does not exist', async () => {
    expect(await processEvent(database.db, '00000000-0000-4000-8000-000000000000')).toEqual({ kind: 'missing' });
  });
});
