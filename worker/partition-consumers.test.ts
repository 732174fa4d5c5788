import type { Job } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../shared/observability/logger.js';
import { createRedis } from '../shared/queue/connection.js';
import { queueLayout } from '../shared/queue/partitions.js';
import { createMatchingProducer } from '../shared/queue/producer.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { eventually } from '../shared/testing/eventually.js';
import { createPartitionConsumers } from './partition-consumers.js';

// The partition consumers of one worker against the real Redis (its own prefix): one intake over every partition held.

const redis = createRedis('redis://127.0.0.1:6379', 'producer');
const consumerRedis = createRedis('redis://127.0.0.1:6379', 'worker');
const layout = queueLayout({ prefix: `test-intake-${uniqueSuffix()}`, cluster: false, partitions: 4 });
const producer = createMatchingProducer(redis, layout);
afterAll(async () => {
  await Promise.all(producer.queues.map((queue) => queue.obliterate({ force: true })));
  await producer.close();
  redis.disconnect();
  consumerRedis.disconnect();
});

describe('partition consumers', () => {
  it('let a busy partition use the whole intake, keep every partition consuming, and stop fetching when stopped', async () => {
    const INTAKE = 8;
    const holding = new Map<number, number>();
    let peak = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const processor = async (job: Job) => {
      const partition = Number(job.data.partition);
      holding.set(partition, (holding.get(partition) ?? 0) + 1);
      peak = Math.max(
        peak,
        [...holding.values()].reduce((sum, n) => sum + n, 0),
      );
      await released;
      holding.set(partition, holding.get(partition)! - 1);
    };
    const consumers = createPartitionConsumers({
      layout,
      connection: consumerRedis,
      processor,
      intake: INTAKE,
      jobLockMs: 5000,
      logger: createLogger({ level: 'silent', name: 'intake-test' }),
      onCompleted: () => {},
      onFailed: () => {},
    });
    for (const partition of [0, 1, 2, 3]) consumers.consumption.start(partition);
    const add = (partition: number, count: number) =>
      producer.queueOf(partition).addBulk(Array.from({ length: count }, () => ({ name: 'evaluate-user', data: { partition } })));
    // A hot partition: 20 jobs in partition 2. An even split would give it INTAKE / 4 = 2 at a time.
    await add(2, 20);
    await eventually(async () => ((holding.get(2) ?? 0) >= INTAKE ? true : undefined), {
      timeoutMs: 10_000,
      what: 'the hot partition to hold the whole intake',
    });
    // The quiet partitions still take a job each while the intake is spent.
    await add(0, 3);
    await add(3, 3);
    await eventually(async () => ((holding.get(0) ?? 0) >= 1 && (holding.get(3) ?? 0) >= 1 ? true : undefined), {
      timeoutMs: 10_000,
      what: 'the quiet partitions to take one each',
    });
    expect(peak).toBeLessThanOrEqual(INTAKE + 4);
    expect(consumers.partitions()).toEqual([0, 1, 2, 3]);

    // Stopped: fetching ends now; the jobs in hand finish and the stop resolves after them.
    const stopping = consumers.consumption.stop(2);
    expect(consumers.partitions()).toEqual([0, 1, 3]);
    await add(2, 5);
    release();
    await stopping;
    await consumers.close();
    const waiting = await producer.queueOf(2).getJobCounts('waiting', 'active');
    expect(waiting.active).toBe(0);
    expect(waiting.waiting).toBeGreaterThanOrEqual(5);
  });
});
