import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, pendingEvents, users } from '../shared/db/schema/index.js';
import { dateToMicros, parseUtcTimestamp } from '../shared/domain/timestamp.js';
import { createRedis } from '../shared/queue/connection.js';
import { createMatchingProducer, type MatchingProducer } from '../shared/queue/producer.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { createTestProvider } from '../shared/testing/fixtures.js';
import { useTestData } from '../shared/testing/test-data.js';
import { reconcileOnce } from './reconciler.js';

const { database } = useTestData('reconciler', { providers: false });
let producer: MatchingProducer;
const redis = createRedis('redis://127.0.0.1:6379', 'producer');

beforeAll(async () => {
  producer = createMatchingProducer(redis, `test-${uniqueSuffix()}`);
});
afterAll(async () => {
  await producer.queue.obliterate({ force: true });
  await producer.close();
  redis.disconnect();
});

describe('reconcileOnce', () => {
  it('puts every pending event and flagged user back on the queue, over several pages, in one pass', async () => {
    const platform = await createTestProvider(database.db, 'platform');
    // Stale unprocessed events (enqueue lost) and users flagged for evaluation, more than one page of each.
    const nowUs = dateToMicros(new Date());
    const n = (count: number) => Array.from({ length: count }, (_, i) => i + 1);
    const stale = await database.db
      .insert(events)
      .values(
        n(700).map((i) => ({
          providerId: platform.id,
          userId: `u${i}`,
          eventType: 'kyc',
          occurredAt: parseUtcTimestamp('2026-01-01T00:00:00Z')! + BigInt(i) * 1_000_000n,
          receivedAt: nowUs - 3_600_000_000n,
        })),
      )
      .returning({ eventId: events.id, providerId: events.providerId, receivedAt: events.receivedAt });
    await database.db.insert(pendingEvents).values(stale);
    await database.db.insert(users).values(n(1200).map((i) => ({ platformId: platform.id, platformUserId: `flagged-${i}`, needsEvaluation: true })));
    // A fresh pending event and a matched one (no pending row) are left to the normal path.
    const [fresh] = await database.db
      .insert(events)
      .values([
        { providerId: platform.id, userId: 'fresh', eventType: 'kyc', occurredAt: nowUs },
        { providerId: platform.id, userId: 'done', eventType: 'kyc', occurredAt: nowUs },
      ])
      .returning({ eventId: events.id, providerId: events.providerId, receivedAt: events.receivedAt });
    await database.db.insert(pendingEvents).values(fresh!);

    expect(await reconcileOnce({ db: database.db, producer }, { minAgeMs: 10_000 })).toEqual({ events: 700, users: 1200 });

    // 700 events travel as two jobs (500 + 200 ids), the users one job each.
    expect((await producer.queue.getJobCounts('waiting')).waiting).toBe(1202);
    const jobs = await producer.queue.getJobs(['waiting'], 0, 2000);
    const queuedEventIds = jobs.filter((job) => job.name === 'match-events').flatMap((job) => job.data.eventIds as string[]);
    const [event] = await database.db.select({ id: events.id }).from(events).where(eq(events.userId, 'u700'));
    expect(queuedEventIds).toHaveLength(700);
    expect(queuedEventIds).toContain(event!.id);

    // A second pass finds the same work already queued: nothing is added twice.
    await reconcileOnce({ db: database.db, producer }, { minAgeMs: 10_000 });
    expect((await producer.queue.getJobCounts('waiting')).waiting).toBe(1202);
  });
});
