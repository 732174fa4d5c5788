import { withTimeout } from '../async/with-timeout.js';
import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { defaultJobOptions, eventBatches, jobId, jobPayloads, MATCHING_QUEUE, type EventRef, type JobName, type JobPayload } from './contract.js';
import { createFairPriority, type FairnessOptions } from './fair-priority.js';

export interface MatchingProducer {
  /** Best effort: resolves false instead of throwing when Redis is unavailable; the reconciler covers the gap. */
  enqueue<N extends JobName>(name: N, payloads: JobPayload<N>[]): Promise<boolean>;
  /** Best effort, like enqueue: one job per provider and MAX_EVENTS_PER_JOB ids, in its provider's fair turn (fair-priority.ts). */
  enqueueEvents(events: readonly EventRef[]): Promise<boolean>;
  /** Puts a user's failed evaluation back in line, or adds it when it is gone; used by the reconciler. True when it did either. */
  requeueUserEvaluation(userId: string): Promise<boolean>;
  /**
   * The reconciler's add for a page of pending events: one job per provider, whose id is derived
   * from its ids, so the same page found again while its job still waits is not added twice.
   * Answers how many of the events it put back (added or retried), the others being queued already.
   */
  requeueEvents(events: readonly EventRef[]): Promise<number>;
  /**
   * When the oldest job still waiting its turn was added (epoch ms), or null when none waits:
   * the wait list's oldest and the next OLDEST_SAMPLE prioritized ones are looked at.
   */
  oldestWaitingSince(): Promise<number | null>;
  queue: Queue;
  close(): Promise<void>;
}

const ENQUEUE_TIMEOUT_MS = 1000;
// Prioritized jobs are served lowest number first; under fair queuing an older job of a busy
// provider can sit further back, so a few hundred are looked at, not just the next one.
const OLDEST_SAMPLE = 500;
// ioredis states in which no command can be sent until a reconnect succeeds.
const DOWN_STATES = new Set(['reconnecting', 'close', 'end']);

/** Defaults of MATCH_FAIR_WINDOW_MS and MATCH_FAIR_QUIET_EVENTS (shared/config.ts). */
const DEFAULT_FAIRNESS = { windowMs: 10_000, quietEvents: 100 };

export function createMatchingProducer(connection: Redis, prefix: string, fairness: FairnessOptions = DEFAULT_FAIRNESS): MatchingProducer {
  const queue = new Queue(MATCHING_QUEUE, { connection, prefix, defaultJobOptions });
  queue.on('error', () => {});
  const fair = createFairPriority(fairness);

  /** A match job's place in line (shared/queue/fair-priority.ts); other jobs, and old payloads, have none. */
  function priorityOf<N extends JobName>(name: N, payload: JobPayload<N>): number | undefined {
    if (name !== 'match-events') return undefined;
    const { providerId, eventIds } = payload as JobPayload<'match-events'>;
    return providerId === undefined ? undefined : fair.take(providerId, eventIds.length);
  }

  async function enqueue<N extends JobName>(name: N, payloads: JobPayload<N>[]): Promise<boolean> {
    if (payloads.length === 0) return true;
    // Known to be down (between reconnect attempts): give up at once. Waiting
    // the timeout would add a second to every request of an outage and leave
    // an add pending per request, all firing together when Redis returns.
    if (DOWN_STATES.has(connection.status)) return false;
    const jobs = payloads.map((payload) => ({
      name,
      data: jobPayloads[name].parse(payload),
      opts: { jobId: jobId[name](payload as never) as string | undefined, priority: priorityOf(name, payload) },
    }));
    try {
      await withTimeout(queue.addBulk(jobs), ENQUEUE_TIMEOUT_MS, 'enqueue timed out');
      return true;
    } catch {
      return false;
    }
  }

  // A failed job is retried rather than re-added (its id is taken for an hour); a waiting or active one is left alone.
  async function requeue<N extends JobName>(name: N, payload: JobPayload<N>, id: string): Promise<boolean> {
    const state = await queue.getJobState(id);
    if (state === 'failed') {
      const job = await queue.getJob(id);
      if (!job) return false;
      await job.retry('failed');
      return true;
    }
    if (state !== 'unknown') return false;
    await queue.add(name, jobPayloads[name].parse(payload), { jobId: id, priority: priorityOf(name, payload) });
    return true;
  }

  const requeueUserEvaluation = (userId: string) => requeue('evaluate-user', { userId }, jobId['evaluate-user']({ userId }));

  async function requeueEvents(events: readonly EventRef[]): Promise<number> {
    let requeued = 0;
    for (const payload of eventBatches(events)) {
      const id = `pending-${createHash('sha1').update(payload.eventIds.join(',')).digest('hex')}`;
      if (await requeue('match-events', payload, id)) requeued += payload.eventIds.length;
    }
    return requeued;
  }

  const enqueueEvents = (events: readonly EventRef[]) => enqueue('match-events', eventBatches(events));

  async function oldestWaitingSince(): Promise<number | null> {
    if (DOWN_STATES.has(connection.status)) return null;
    // BullMQ pushes new jobs on the left of the wait list and serves from the right.
    const [oldestWaiting, nextPrioritized] = await withTimeout(
      Promise.all([connection.lrange(queue.keys.wait!, -1, -1), connection.zrange(queue.keys.prioritized!, 0, OLDEST_SAMPLE - 1)]),
      ENQUEUE_TIMEOUT_MS,
      'queue lookup timed out',
    );
    const ids = [...oldestWaiting, ...nextPrioritized];
    if (ids.length === 0) return null;
    const pipeline = connection.pipeline();
    for (const id of ids) pipeline.hget(queue.toKey(id), 'timestamp');
    const replies = await withTimeout(pipeline.exec(), ENQUEUE_TIMEOUT_MS, 'queue lookup timed out');
    const stamps = (replies ?? []).map(([, value]) => Number(value)).filter((t) => Number.isFinite(t) && t > 0);
    return stamps.length === 0 ? null : Math.min(...stamps);
  }

  return { enqueue, enqueueEvents, requeueUserEvaluation, requeueEvents, oldestWaitingSince, queue, close: () => queue.close() };
}
