import { randomUUID } from 'node:crypto';
import { type Job, Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { serviceUserId } from '../domain/ids.js';
import { uniqueSuffix } from '../testing/database.js';
import { eventually } from '../testing/eventually.js';
import { createRedis } from './connection.js';
import { MATCHING_QUEUE } from './contract.js';
import { queueLayout } from './partitions.js';
import { createMatchingProducer } from './producer.js';

// A user's evaluation asked for while an evaluation of theirs is already running (a second reversal, a
// link, against the real Redis, its own prefix): the running one may have read the user before the
// caller's commit, so the add, which BullMQ ignores for an id still in the queue, is followed by a job of
// its own. Without it the user waited for the reconciler's next pass (seen in the bench's reversed drain).

const redis = createRedis('redis://127.0.0.1:6379', 'producer');
const workerRedis = createRedis('redis://127.0.0.1:6379', 'worker');
const layout = queueLayout({ prefix: `test-evaluations-${uniqueSuffix()}`, cluster: false, partitions: 1 });
const producer = createMatchingProducer(redis, layout);
afterAll(async () => {
  await producer.queue.obliterate({ force: true });
  await producer.close();
  redis.disconnect();
  workerRedis.disconnect();
});

const evaluationsOf = async (userId: string) =>
  (await producer.queue.getJobs(['waiting', 'prioritized', 'active'])).filter((job) => job.data.userId === userId);

describe('evaluate-user adds', () => {
  it('stay one job while it waits, and get a job of their own while it runs', async () => {
    const userId = serviceUserId(randomUUID());
    expect(await producer.enqueue('evaluate-user', [{ userId }])).toBe(true);
    expect(await producer.enqueue('evaluate-user', [{ userId }])).toBe(true);
    expect((await evaluationsOf(userId)).map((job) => job.id)).toEqual([`user-${userId}`]);

    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    const worker = new Worker(
      MATCHING_QUEUE,
      async (job: Job) => {
        started.push(job.id!);
        await released;
      },
      { connection: workerRedis, prefix: layout.matchingPrefix(0), concurrency: 1 },
    );
    try {
      await eventually(async () => (started.length === 1 ? true : undefined), { what: 'the first evaluation to run' });
      expect(await producer.enqueue('evaluate-user', [{ userId }])).toBe(true);
      const jobs = await evaluationsOf(userId);
      // The running one, and one of its own for the add it would have swallowed ("user-…" sorts first).
      expect(jobs.map((job) => job.id).sort()).toEqual([`user-${userId}`, expect.stringMatching(`^user-${userId}-again-`)]);
      release();
      await eventually(async () => (started.length === 2 ? true : undefined), { what: 'the follow-up to run' });
    } finally {
      release();
      await worker.close();
    }
  });
});
