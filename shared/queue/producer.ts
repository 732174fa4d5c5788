import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { defaultJobOptions, eventBatches, jobId, jobPayloads, MATCHING_QUEUE, type JobName, type JobPayload } from './contract.js';

export interface MatchingProducer {
  /** Best effort: resolves false instead of throwing when Redis is unavailable; the reconciler covers the gap. */
  enqueue<N extends JobName>(name: N, payloads: JobPayload<N>[]): Promise<boolean>;
  /** Best effort, like enqueue: the ids travel together, one job per MAX_EVENTS_PER_JOB. */
  enqueueEvents(eventIds: readonly string[]): Promise<boolean>;
  /** Puts a user's failed evaluation back in line, or adds it when it is gone; used by the reconciler. */
  requeueUserEvaluation(userId: string): Promise<void>;
  /**
   * The reconciler's add for a page of pending events (at most MAX_EVENTS_PER_JOB): the job id is
   * derived from the ids, so the same page found again while its job still waits is not added twice.
   */
  requeueEvents(eventIds: readonly string[]): Promise<void>;
  queue: Queue;
  close(): Promise<void>;
}

const ENQUEUE_TIMEOUT_MS = 1000;
// ioredis states in which no command can be sent until a reconnect succeeds.
const DOWN_STATES = new Set(['reconnecting', 'close', 'end']);

export function createMatchingProducer(connection: Redis, prefix: string): MatchingProducer {
  const queue = new Queue(MATCHING_QUEUE, { connection, prefix, defaultJobOptions });
  queue.on('error', () => {});

  async function enqueue<N extends JobName>(name: N, payloads: JobPayload<N>[]): Promise<boolean> {
    if (payloads.length === 0) return true;
    // Known to be down (between reconnect attempts): give up at once. Waiting
    // the timeout would add a second to every request of an outage and leave
    // an add pending per request, all firing together when Redis returns.
    if (DOWN_STATES.has(connection.status)) return false;
    const jobs = payloads.map((payload) => ({
      name,
      data: jobPayloads[name].parse(payload),
      opts: { jobId: jobId[name](payload as never) as string | undefined },
    }));
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        queue.addBulk(jobs),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('enqueue timed out')), ENQUEUE_TIMEOUT_MS);
        }),
      ]);
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  // A failed job is retried rather than re-added (its id is taken for an hour); a waiting or active one is left alone.
  async function requeue<N extends JobName>(name: N, payload: JobPayload<N>, id: string): Promise<void> {
    const state = await queue.getJobState(id);
    if (state === 'failed') {
      const job = await queue.getJob(id);
      await job?.retry('failed');
    } else if (state === 'unknown') {
      await queue.add(name, jobPayloads[name].parse(payload), { jobId: id });
    }
  }

  const requeueUserEvaluation = (userId: string) => requeue('evaluate-user', { userId }, jobId['evaluate-user']({ userId }));
  const requeueEvents = (eventIds: readonly string[]) =>
    requeue('match-events', { eventIds: [...eventIds] }, `pending-${createHash('sha1').update(eventIds.join(',')).digest('hex')}`);

  const enqueueEvents = (eventIds: readonly string[]) => enqueue('match-events', eventBatches(eventIds));

  return { enqueue, enqueueEvents, requeueUserEvaluation, requeueEvents, queue, close: () => queue.close() };
}
