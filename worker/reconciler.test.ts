import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../shared/db/client.js';
import { type NamedSession, sessionsNamed } from '../shared/db/lease-store.js';
import { events, pendingEvents, users } from '../shared/db/schema/index.js';
import { senderUserId } from '../shared/domain/ids.js';
import { dateToMicros, parseUtcTimestamp } from '../shared/domain/timestamp.js';
import { createRedis } from '../shared/queue/connection.js';
import { createMatchingProducer, type MatchingProducer } from '../shared/queue/producer.js';
import { capturingLogger } from '../shared/testing/captured-log.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { createTestProvider } from '../shared/testing/fixtures.js';
import { useTestData } from '../shared/testing/test-data.js';
import { reconcileOnce, startReconciler } from './reconciler.js';

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
          userId: senderUserId(`u${i}`),
          eventType: 'kyc',
          occurredAt: parseUtcTimestamp('2026-01-01T00:00:00Z')! + BigInt(i) * 1_000_000n,
          receivedAt: nowUs - 3_600_000_000n,
        })),
      )
      .returning({
        eventId: events.id,
        providerId: events.providerId,
        occurredAt: events.occurredAt,
        receivedAt: events.receivedAt,
      });
    await database.db.insert(pendingEvents).values(stale);
    await database.db
      .insert(users)
      .values(
        n(1200).map((i) => ({ platformId: platform.id, platformUserId: senderUserId(`flagged-${i}`), needsEvaluation: true })),
      );
    // A fresh pending event and a matched one (no pending row) are left to the normal path.
    const [fresh] = await database.db
      .insert(events)
      .values([
        { providerId: platform.id, userId: senderUserId('fresh'), eventType: 'kyc', occurredAt: nowUs },
        { providerId: platform.id, userId: senderUserId('done'), eventType: 'kyc', occurredAt: nowUs },
      ])
      .returning({
        eventId: events.id,
        providerId: events.providerId,
        occurredAt: events.occurredAt,
        receivedAt: events.receivedAt,
      });
    await database.db.insert(pendingEvents).values(fresh!);

    expect(await reconcileOnce({ db: database.db, producer }, { minAgeMs: 10_000 })).toEqual({
      events: 700,
      users: 1200,
      alreadyQueued: 0,
    });

    // 700 events travel as two jobs (500 + 200 ids, prioritized: one provider's 700 events are a backlog), the users one job each.
    expect(await queued()).toBe(1202);
    const jobs = await producer.queue.getJobs(['waiting', 'prioritized'], 0, 2000);
    const queuedEventIds = jobs.filter((job) => job.name === 'match-events').flatMap((job) => job.data.eventIds as string[]);
    const [event] = await database.db
      .select({ id: events.id })
      .from(events)
      .where(eq(events.userId, senderUserId('u700')));
    expect(queuedEventIds).toHaveLength(700);
    expect(queuedEventIds).toContain(event!.id);

    // A second pass finds the same work already queued: nothing is added twice, and it says so.
    expect(await reconcileOnce({ db: database.db, producer }, { minAgeMs: 10_000 })).toEqual({
      events: 0,
      users: 0,
      alreadyQueued: 1900,
    });
    expect(await queued()).toBe(1202);

    // Its log line counts what it put back (here: the stale events of a second provider), not what it found.
    const other = await createTestProvider(database.db, 'platform');
    const more = await staleEvents(other.id, 30);
    const { logger, lines } = reconcilerLog();
    const reconciler = startReconciler({ db: database.db, producer, logger }, { intervalMs: 60_000, minAgeMs: 10_000 });
    await reconciler.runNow(10_000);
    await reconciler.stop();
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'reconciler put pending work back on the queue',
        events: 30,
        users: 0,
        alreadyQueued: 1900,
      }),
    ]);
    const jobs2 = await producer.queue.getJobs(['waiting', 'prioritized'], 0, 5000);
    const requeued = jobs2.filter((job) => job.data.providerId === other.id).flatMap((job) => job.data.eventIds as string[]);
    expect(requeued.sort()).toEqual(more.sort());
  });

  it('calls Redis only after its transaction ended: no session of it is inside a transaction meanwhile', async () => {
    const platform = await createTestProvider(database.db, 'platform');
    await staleEvents(platform.id, 3);
    // The real producer, watched: each call looks at the reconciler's sessions before going to Redis.
    const seen: NamedSession[][] = [];
    const watched: MatchingProducer = {
      ...producer,
      requeueEvents: async (refs) => (seen.push(await sessionsNamed(watcher.db, APPLICATION)), producer.requeueEvents(refs)),
      requeueUserEvaluation: async (id) => (
        seen.push(await sessionsNamed(watcher.db, APPLICATION)), producer.requeueUserEvaluation(id)
      ),
    };
    const counts = await reconcileOnce({ db: reconcilerDb.db, producer: watched }, { minAgeMs: 10_000 });
    expect(counts.events).toBe(3);
    expect(seen.length).toBeGreaterThan(0);
    // A transaction held open across a Redis call shows as 'idle in transaction'. (An 'idle' row with
    // a transaction start is the stats' passing view of a session between two commands: seen once in
    // four full-suite runs, with nothing open.)
    for (const sessions of seen)
      expect(sessions.filter((session) => session.inTransaction && session.state !== 'idle')).toEqual([]);
  });

  it('leaves a backlog that still waits in the queue alone, and puts back what is older than the oldest waiting job', async () => {
    const backlogProducer = createMatchingProducer(redis, `test-${uniqueSuffix()}`);
    try {
      const platform = await createTestProvider(database.db, 'platform');
      // A minute-old backlog whose job (added two minutes ago, as a long queue would hold it) has not had its turn yet...
      const waiting = await staleEvents(platform.id, 5, 60_000_000n);
      await backlogProducer.queue.add(
        'match-events',
        { eventIds: waiting, providerId: platform.id },
        { timestamp: Date.now() - 120_000, priority: 7 },
      );
      // ...and events an hour old whose job was lost.
      const lost = await staleEvents(platform.id, 4);
      // (This queue is new: the earlier tests' pending work is put back in it too; only this provider's is looked at.)
      await reconcileOnce({ db: database.db, producer: backlogProducer }, { minAgeMs: 10_000 });
      const jobs = await backlogProducer.queue.getJobs(['waiting', 'prioritized'], 0, 5000);
      const queuedIds = jobs.filter((job) => job.data.providerId === platform.id).flatMap((job) => job.data.eventIds as string[]);
      expect(queuedIds.sort()).toEqual([...waiting, ...lost].sort()); // the backlog once, the lost ones back
    } finally {
      await backlogProducer.queue.obliterate({ force: true });
      await backlogProducer.close();
    }
  });
});

const queued = async () => {
  const counts = await producer.queue.getJobCounts('waiting', 'prioritized');
  return (counts.waiting ?? 0) + (counts.prioritized ?? 0);
};

const APPLICATION = 'reconciler-under-test';
let reconcilerDb: ReturnType<typeof createDatabase>;
let watcher: ReturnType<typeof createDatabase>;
beforeAll(() => {
  reconcilerDb = createDatabase({ url: database.url, poolSize: 2, applicationName: APPLICATION });
  watcher = createDatabase({ url: database.url, poolSize: 1, applicationName: 'reconciler-watcher' });
});
afterAll(async () => {
  await Promise.all([reconcilerDb.close(), watcher.close()]);
});

/** `count` events of the provider, received `ageUs` ago (default an hour) and still pending (their enqueue was lost). */
async function staleEvents(providerId: string, count: number, ageUs = 3_600_000_000n): Promise<string[]> {
  const nowUs = dateToMicros(new Date());
  const rows = await database.db
    .insert(events)
    .values(
      Array.from({ length: count }, (_, i) => ({
        providerId,
        userId: senderUserId(`s${i}-${ageUs}`),
        eventType: 'kyc',
        occurredAt: nowUs - BigInt(i) * 1_000_000n,
        receivedAt: nowUs - ageUs,
      })),
    )
    .returning({
      eventId: events.id,
      providerId: events.providerId,
      occurredAt: events.occurredAt,
      receivedAt: events.receivedAt,
    });
  await database.db.insert(pendingEvents).values(rows);
  return rows.map((row) => row.eventId);
}

const reconcilerLog = () => capturingLogger({ level: 'info', name: 'reconciler-test' });
