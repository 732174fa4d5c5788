import { Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { insertOrFindEvents } from '../shared/db/event-store.js';
import { senderUserId } from '../shared/domain/ids.js';
import { createRedis } from '../shared/queue/connection.js';
import { MATCHING_QUEUE } from '../shared/queue/contract.js';
import { createMatchingProducer } from '../shared/queue/producer.js';
import { capturingLogger } from '../shared/testing/captured-log.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { eventually } from '../shared/testing/eventually.js';
import { createTestProvider } from '../shared/testing/fixtures.js';
import { nothingPending } from '../shared/testing/progress.js';
import { useTestData } from '../shared/testing/test-data.js';
import { createProcessor } from './processor.js';

// Fair matching (docs/reliability.md): with one provider's backlog queued first, another provider's event
// is matched within the first few batches, not after the whole backlog. Deterministic: it
// counts batches, not seconds.

const { database } = useTestData('fair_matching', { providers: false });
const redis = createRedis('redis://127.0.0.1:6379', 'producer');
const workerRedis = createRedis('redis://127.0.0.1:6379', 'worker');
const prefix = `test-fair-${uniqueSuffix()}`;
// Quiet up to 10 events per minute: the backlog below is far past it, the lone event well within.
const producer = createMatchingProducer(redis, prefix, { windowMs: 60_000, quietEvents: 10 });
afterAll(async () => {
  await producer.queue.obliterate({ force: true });
  await producer.close();
  redis.disconnect();
  workerRedis.disconnect();
});

/** The worker's log lines, parsed: the processor logs each batch, then each job of it. */
const workerLog = () => capturingLogger<{ msg: string; matched?: string[] }>({ level: 'debug', name: 'fair-test' });

const stamp = (i: number) => BigInt(Date.UTC(2026, 0, 1) + i * 1000) * 1000n;

describe('fair matching between providers', () => {
  it("matches a quiet provider's event within the first batches, behind a noisy provider's backlog of 60 jobs", async () => {
    const noisy = await createTestProvider(database.db, 'platform');
    const quiet = await createTestProvider(database.db, 'platform');
    // The backlog: 60 ingest calls of 10 events each, all queued before the quiet provider's one event.
    for (let call = 0; call < 60; call += 1) {
      const stored = await insertOrFindEvents(
        database.db,
        Array.from({ length: 10 }, (_, i) => ({
          providerId: noisy.id,
          userId: senderUserId(`n${i}`),
          eventType: 'deposit',
          occurredAt: stamp(call * 10 + i),
        })),
      );
      expect(await producer.enqueueEvents(stored.map((e) => ({ eventId: e.id, providerId: noisy.id })))).toBe(true);
    }
    const [lone] = await insertOrFindEvents(database.db, [
      { providerId: quiet.id, userId: senderUserId('q'), eventType: 'deposit', occurredAt: stamp(0) },
    ]);
    expect(await producer.enqueueEvents([{ eventId: lone!.id, providerId: quiet.id }])).toBe(true);

    const { logger, lines } = workerLog();
    // Two jobs per batch, one batch at a time: 61 jobs make 31 batches.
    const processor = createProcessor({
      db: database.db,
      logger,
      publish: async () => {},
      maxBatchSize: 20,
      batchesInFlight: 1,
      onEventProcessed: () => {},
    });
    const worker = new Worker(MATCHING_QUEUE, processor, { connection: workerRedis, prefix, concurrency: 2 });
    try {
      await eventually(() => nothingPending(database.db), { timeoutMs: 60_000, what: 'every event matched' });
    } finally {
      await worker.close();
    }

    const jobLine = lines.findIndex((line) => line.msg === 'event job done' && line.matched?.includes(lone!.id));
    expect(jobLine).toBeGreaterThan(-1);
    const batchesUpToIt = lines.slice(0, jobLine).filter((line) => line.msg === 'batch committed').length;
    expect(lines.filter((line) => line.msg === 'batch committed').length).toBeGreaterThanOrEqual(30);
    // Only the noisy provider's first job was queued while it still counted as quiet.
    expect(batchesUpToIt).toBeLessThanOrEqual(2);
  });
});
