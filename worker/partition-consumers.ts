import { type Job, Worker } from 'bullmq';
import { logThrottle } from '../shared/observability/log-throttle.js';
import type { Logger } from '../shared/observability/logger.js';
import type { RedisClient } from '../shared/queue/connection.js';
import { MATCHING_QUEUE } from '../shared/queue/contract.js';
import type { QueueLayout } from '../shared/queue/partitions.js';
import { backOffOnErrors } from './error-backoff.js';

/** How a lease keeper starts and stops this process's consumption of a matching partition. */
export interface PartitionConsumption {
  /** Starts consuming `partition` (its queue, and for partition 0 the queue of versions before partitions). */
  start(partition: number): void;
  /** Stops fetching at once; resolves when the jobs in flight are done. */
  stop(partition: number): Promise<void>;
}

interface Consumer {
  worker: Worker;
  /** Jobs of this consumer in the processor now. */
  active: number;
  backoff: { stop(): void };
}

/**
 * The BullMQ workers of the matching partitions this process consumes, all
 * feeding one processor (one batcher), so jobs of every partition it holds
 * are matched together. WORKER_CONCURRENCY (`intake`) is the process's intake
 * over all of them: a partition may take more jobs while the process holds
 * fewer than `intake` in all, and always one, so a partition with a hot user
 * can use the whole intake and a quiet one is never shut out.
 */
export function createPartitionConsumers(options: {
  layout: QueueLayout;
  connection: RedisClient;
  processor: (job: Job) => Promise<unknown>;
  intake: number;
  jobLockMs: number;
  logger: Logger;
  onCompleted: (job: Job) => void;
  onFailed: (job: Job | undefined) => void;
}) {
  const { layout, logger } = options;
  const consumers = new Map<number, Consumer[]>();
  const closing = new Set<Promise<void>>();
  let active = 0;
  // A Redis away fails every partition's worker at once: one set of lines for them all.
  const shared = { errors: logThrottle(10_000), pauses: logThrottle(10_000) };

  // Every consumer of every partition held, kept as one list: share() runs twice per job.
  let every: Consumer[] = [];
  const listConsumers = () => {
    every = [...consumers.values()].flat();
  };
  // Each consumer may hold what it holds plus whatever the process has to spare, and always one.
  const share = () => {
    const spare = Math.max(0, options.intake - active);
    for (const consumer of every) consumer.worker.concurrency = Math.max(1, consumer.active + spare);
  };

  function consume(prefix: string, label: string): Consumer {
    const consumer = { active: 0 } as Consumer;
    const process = async (job: Job) => {
      consumer.active += 1;
      active += 1;
      share();
      try {
        return await options.processor(job);
      } finally {
        consumer.active -= 1;
        active -= 1;
        share();
      }
    };
    consumer.worker = new Worker(MATCHING_QUEUE, process, {
      connection: options.connection,
      prefix,
      concurrency: Math.max(1, options.intake - active),
      // A stopped or killed worker's jobs go back to the queue within 2 x JOB_LOCK_MS.
      lockDuration: options.jobLockMs,
      stalledInterval: options.jobLockMs,
      // A job whose worker died is retried instead of failed: its transaction never committed.
      maxStalledCount: 100,
    });
    consumer.worker.on('failed', (job, error) => {
      logger.warn({ jobId: job?.id, job: job?.name, partition: label, attempts: job?.attemptsMade, err: error }, 'job failed');
      options.onFailed(job);
    });
    consumer.worker.on('completed', (job) => options.onCompleted(job));
    // Connection errors are logged (rate-limited) and a worker that keeps failing pauses its fetching (error-backoff.ts).
    consumer.backoff = backOffOnErrors(consumer.worker, logger, `${MATCHING_QUEUE}:${label}`, { shared });
    return consumer;
  }

  const consumption: PartitionConsumption = {
    start(partition) {
      if (consumers.has(partition)) return;
      const queues = [consume(layout.matchingPrefix(partition), String(partition))];
      // Jobs an upgrade left in the single queue of earlier versions: drained by whoever holds partition 0.
      if (partition === 0 && layout.legacyMatchingPrefix !== null) queues.push(consume(layout.legacyMatchingPrefix, 'legacy'));
      consumers.set(partition, queues);
      listConsumers();
      share();
    },
    stop(partition) {
      const queues = consumers.get(partition);
      if (!queues) return Promise.resolve();
      consumers.delete(partition);
      listConsumers();
      // close() drops the blocking connection first, so fetching stops now; it resolves once the jobs in hand are done.
      const closed = Promise.allSettled(
        queues.map((consumer) => {
          consumer.backoff.stop();
          return consumer.worker.close();
        }),
      ).then(() => undefined);
      closing.add(closed);
      void closed.finally(() => closing.delete(closed));
      share();
      return closed;
    },
  };

  return {
    consumption,
    /** The partitions being consumed now. */
    partitions: () => [...consumers.keys()].sort((a, b) => a - b),
    /** Stops every partition and waits for every job in flight, those of partitions stopped earlier included. */
    async close() {
      await Promise.all([...consumers.keys()].map((partition) => consumption.stop(partition)));
      await Promise.all([...closing]);
    },
  };
}
