import { afterAll, describe, expect, it } from 'vitest';
import { events, pendingEvents } from '../shared/db/schema/index.js';
import { senderUserId } from '../shared/domain/ids.js';
import { dateToMicros } from '../shared/domain/timestamp.js';
import { createRedis } from '../shared/queue/connection.js';
import { partitionOf, queueLayout, senderKey } from '../shared/queue/partitions.js';
import { createMatchingProducer } from '../shared/queue/producer.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { createTestProvider } from '../shared/testing/fixtures.js';
import { useTestData } from '../shared/testing/test-data.js';
import { reconcileOnce } from './reconciler.js';

// The reconciler over MATCHING_PARTITIONS queues (on the shared single Redis, its own prefix).

const PARTITIONS = 4;
const { database } = useTestData('reconciler_partitions', { providers: false });
const redis = createRedis('redis://127.0.0.1:6379', 'producer');
const producer = createMatchingProducer(
  redis,
  queueLayout({ prefix: `test-${uniqueSuffix()}`, cluster: false, partitions: PARTITIONS }),
);

afterAll(async () => {
  await Promise.all(producer.queues.map((queue) => queue.obliterate({ force: true })));
  await producer.close();
  redis.disconnect();
});

/** `count` pending events of the provider for users u0..u(count-1), received `ageUs` ago. */
async function pendingOf(providerId: string, count: number, ageUs: bigint, tag: string) {
  const nowUs = dateToMicros(new Date());
  const rows = await database.db
    .insert(events)
    .values(
      Array.from({ length: count }, (_, i) => ({
        providerId,
        userId: senderUserId(`${tag}${i}`),
        eventType: 'kyc',
        occurredAt: nowUs - BigInt(i) * 1_000_000n,
        receivedAt: nowUs - ageUs,
      })),
    )
    .returning({
      eventId: events.id,
      providerId: events.providerId,
      userId: events.userId,
      occurredAt: events.occurredAt,
      receivedAt: events.receivedAt,
    });
  await database.db.insert(pendingEvents).values(rows.map(({ userId: _, ...row }) => row));
  return rows;
}

/** Event ids queued (waiting or prioritized) per partition, for one provider. */
async function queuedByPartition(providerId: string): Promise<string[][]> {
  return Promise.all(
    producer.queues.map(async (queue) =>
      (await queue.getJobs(['waiting', 'prioritized'], 0, 5000))
        .filter((job) => job.data.providerId === providerId)
        .flatMap((job) => job.data.eventIds as string[]),
    ),
  );
}

describe('reconcileOnce over partitioned queues', () => {
  it("puts each lost event back on its sender's user's partition, and leaves alone a backlog still waiting in any partition", async () => {
    const platform = await createTestProvider(database.db, 'platform');
    // Lost an hour ago: their jobs are gone.
    const lost = await pendingOf(platform.id, 24, 3_600_000_000n, 'lost-');
    // A minute old, and their job (added two minutes ago, as a long queue holds it) still waits in the last partition.
    const waiting = await pendingOf(platform.id, 3, 60_000_000n, 'waiting-');
    const last = producer.queues[PARTITIONS - 1]!;
    await last.add(
      'match-events',
      { eventIds: waiting.map((e) => e.eventId), providerId: platform.id },
      { timestamp: Date.now() - 120_000, priority: 7 },
    );
    expect(await producer.oldestWaitingSince()).toBeLessThanOrEqual(Date.now() - 120_000);

    await reconcileOnce({ db: database.db, producer }, { minAgeMs: 10_000 });
    const queued = await queuedByPartition(platform.id);
    const expected: string[][] = Array.from({ length: PARTITIONS }, () => []);
    for (const event of lost) expected[partitionOf(senderKey(platform.id, event.userId), PARTITIONS)]!.push(event.eventId);
    expected[PARTITIONS - 1]!.push(...waiting.map((e) => e.eventId)); // once: the waiting job only
    expect(queued.map((ids) => ids.sort())).toEqual(expected.map((ids) => ids.sort()));
    expect(expected.filter((ids) => ids.length > 0).length).toBeGreaterThan(1); // the users did spread

    // After another worker's sessions were ended: what it held goes back whatever waits (its partitions' backlog
    // grew while it was stopped, and says nothing of its jobs), so the waiting events get a second job.
    const held = await pendingOf(platform.id, 2, 30_000_000n, 'held-');
    await reconcileOnce({ db: database.db, producer }, { minAgeMs: 10_000 });
    expect((await queuedByPartition(platform.id)).flat()).not.toEqual(expect.arrayContaining(held.map((e) => e.eventId)));
    await reconcileOnce({ db: database.db, producer }, { minAgeMs: 10_000, ignoreQueueLag: true });
    const requeued = (await queuedByPartition(platform.id)).flat();
    expect(requeued).toEqual(expect.arrayContaining(held.map((e) => e.eventId)));
    expect(requeued.filter((id) => waiting.some((e) => e.eventId === id))).toHaveLength(2 * waiting.length);
  });
});
