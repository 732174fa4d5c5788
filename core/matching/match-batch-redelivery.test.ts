import { describe, expect, it } from 'vitest';
import { insertOrFindEvents } from '../../shared/db/event-store.js';
import { senderUserId } from '../../shared/domain/ids.js';
import { parseUtcTimestamp } from '../../shared/domain/timestamp.js';
import { createTestUser } from '../../shared/testing/chains.js';
import { useTestData } from '../../shared/testing/test-data.js';
import { matchBatch } from './match-batch.js';

// BullMQ delivers at least once: a job whose lock lapsed (a worker stalled
// under load, not dead) runs again while the first run is still going, and the
// reconciler may add a page of events that is also still queued. Each event
// must still be matched exactly once.

const { database, platform } = useTestData('process_redelivery');

async function storeEvent(userId: string, second: number): Promise<string> {
  // Stored and pending, as ingest leaves it.
  const [row] = await insertOrFindEvents(database.db, [
    {
      providerId: platform.id,
      userId: senderUserId(userId),
      eventType: 'deposit',
      occurredAt: parseUtcTimestamp(`2026-03-01T10:00:${String(second).padStart(2, '0')}Z`)!,
    },
  ]);
  return row!.id;
}

describe('matchBatch under concurrent redelivery', () => {
  it('processes an event once when several runs of its job overlap', async () => {
    await createTestUser(database.db, platform.id, 'registered');
    for (const [round, userId] of ['registered', 'unregistered', 'registered', 'unregistered'].entries()) {
      const eventId = await storeEvent(userId, round);
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, () => matchBatch({ db: database.db }, { eventIds: [eventId], evaluateUserIds: [] })),
      );
      expect(
        outcomes.filter((o) => o.matched.length === 1),
        `round ${round}`,
      ).toHaveLength(1);
      expect(outcomes.filter((o) => o.matched.length === 0)).toHaveLength(5);
    }
  });

  it('matches nothing for an event that does not exist', async () => {
    expect(
      (await matchBatch({ db: database.db }, { eventIds: ['00000000-0000-4000-8000-000000000000'], evaluateUserIds: [] }))
        .matched,
    ).toEqual([]);
  });
});
