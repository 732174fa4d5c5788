import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { defaultJobOptions, jobId, jobPayloads, MATCHING_QUEUE, type JobName, type JobPayload } from './contract.js';

export interface MatchingProducer {
  /** Best effort: resolves false instead of throwing when Redis is unavailable; the reconciler covers the gap. */
  enqueue<N extends JobName>(name: N, payloads: JobPayload<N>[]): Promise<boolean>;
  /** Puts a failed job back in line, or adds it when it is gone; used by the reconciler. */
  requeue<N extends JobName>(name: N, payload: JobPayload<N>): Promise<void>;
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
      opts: { jobId: jobId[name](payload as never) },
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

  async function requeue<N extends JobName>(name: N, payload: JobPayload<N>): Promise<void> {
    const id = jobId[name](payload as never);
    const state = await queue.getJobState(id);
    if (state === 'failed') {
      const job = await queue.getJob(id);
      await job?.retry('failed');
    } else if (state === 'unknown') {
      await queue.add(name, jobPayloads[name].parse(payload), { jobId: id });
    }
  }

  return { enqueue, requeue, queue, close: () => queue.close() };
}
