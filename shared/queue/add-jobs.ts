import type { Queue } from 'bullmq';
import { withTimeout } from '../async/with-timeout.js';

/** How long an add may wait on Redis before its caller gives up on it (the work stays in Postgres). */
export const ENQUEUE_TIMEOUT_MS = 1000;

export type QueuedJobs = Parameters<Queue['addBulk']>[0];

/**
 * Adds `jobs` to `queue`, rejecting after ENQUEUE_TIMEOUT_MS. One job goes in
 * with its own script: addBulk wraps even one in MULTI/EXEC through an ioredis
 * pipeline, whose constructor copies every command BullMQ defines onto it.
 * Most adds are one job (one provider's call or flush, one webhook attempt),
 * so that copy would be paid on nearly every ingest (docs/performance.md).
 */
export function addJobs(queue: Queue, jobs: QueuedJobs): Promise<unknown> {
  const only = jobs.length === 1 ? jobs[0]! : undefined;
  const added: Promise<unknown> = only ? queue.add(only.name, only.data, only.opts) : queue.addBulk(jobs);
  return withTimeout(added, ENQUEUE_TIMEOUT_MS, 'enqueue timed out');
}
