import { createHash } from 'node:crypto';
import { type JobType, Queue } from 'bullmq';
import { coalesce } from '../async/coalesce.js';
import { withTimeout } from '../async/with-timeout.js';
import { groupBy } from '../collections.js';
import type { ServiceUserId } from '../domain/ids.js';
import { logThrottle } from '../observability/log-throttle.js';
import type { Logger } from '../observability/logger.js';
import { addJobs, ENQUEUE_TIMEOUT_MS } from './add-jobs.js';
import type { RedisClient } from './connection.js';
import {
  defaultJobOptions,
  type EventRef,
  eventBatches,
  type JobName,
  type JobPayload,
  jobId,
  jobPayloads,
  MATCHING_QUEUE,
} from './contract.js';
import { createFairPriority, type FairnessOptions } from './fair-priority.js';
import { probeQueueSlots, queueProbeKey } from './readiness.js';
import { plainLayout, type QueueLayout, senderKey, shardOf } from './shards.js';

export interface MatchingProducer {
  /** Best effort: resolves false instead of throwing when Redis is unavailable (logged, counted); the reconciler covers the gap. */
  enqueue<N extends JobName>(name: N, payloads: JobPayload<N>[]): Promise<boolean>;
  /** Best effort, like enqueue: one job per shard, provider and MAX_EVENTS_PER_JOB ids, in its provider's fair turn (fair-priority.ts). */
  enqueueEvents(events: readonly EventRef[]): Promise<boolean>;
  /** Puts a user's failed evaluation back in line, or adds it when it is gone; used by the reconciler. True when it did either. */
  requeueUserEvaluation(userId: string): Promise<boolean>;
  /**
   * The reconciler's add for a page of pending events: one job per shard and provider, whose id is derived
   * from its ids, so the same page found again while its job still waits is not added twice.
   * Answers how many of the events it put back (added or retried), the others being queued already.
   */
  requeueEvents(events: readonly EventRef[]): Promise<number>;
  /**
   * When the oldest job still waiting its turn was added (epoch ms), or null when none waits, over every
   * shard that answers: each shard's wait list's oldest and next OLDEST_SAMPLE prioritized ones are looked at.
   */
  oldestWaitingSince(): Promise<number | null>;
  /** Resolves when every shard's hash slot takes a write (readiness); rejects naming the first that did not. */
  probe(): Promise<void>;
  /** Job counts by state, summed over the shards (the qcr_queue_jobs gauge). */
  getJobCounts(...states: string[]): Promise<Record<string, number>>;
  /** Jobs given up on since the process started (Redis away, timed out, refused): qcr_enqueue_failures_total. */
  readonly failedJobs: number;
  /** The first shard's queue (single-shard tools and tests). */
  queue: Queue;
  /** Every shard's queue, by shard number. */
  queues: readonly Queue[];
  layout: QueueLayout;
  close(): Promise<void>;
}

export interface ProducerOptions {
  /** Where enqueue failures are reported, at most one line per ENQUEUE_FAILURE_LOG_MS. */
  logger?: Logger;
}

const ENQUEUE_FAILURE_LOG_MS = 10_000;
// Prioritized jobs are served lowest number first; under fair queuing an older job of a busy
// provider can sit further back, so a few hundred are looked at, not just the next one.
const OLDEST_SAMPLE = 500;
// ioredis states in which no command can be sent until a reconnect succeeds.
const DOWN_STATES = new Set(['reconnecting', 'close', 'end']);

/** Defaults of MATCH_FAIR_WINDOW_MS and MATCH_FAIR_QUIET_EVENTS (shared/config.ts). */
const DEFAULT_FAIRNESS = { windowMs: 10_000, quietEvents: 100 };

/**
 * The matching queue's producer, over MATCHING_QUEUE_SHARDS queues
 * (shared/queue/shards.ts): each job goes to its user's shard. One fair
 * accounting covers every shard, so a provider's rate is judged on all its
 * events and its tags still never decrease within any shard.
 * `layout` may be a bare prefix: one shard on one Redis (tests, tools).
 */
export function createMatchingProducer(
  connection: RedisClient,
  layout: QueueLayout | string,
  fairness: FairnessOptions = DEFAULT_FAIRNESS,
  options: ProducerOptions = {},
): MatchingProducer {
  const shape = typeof layout === 'string' ? plainLayout(layout) : layout;
  const queues = Array.from({ length: shape.shards }, (_, shard) => {
    const queue = new Queue(MATCHING_QUEUE, { connection, prefix: shape.matchingPrefix(shard), defaultJobOptions });
    // Every failed call is reported where it is made (enqueue, requeue); the queue's own event would repeat it.
    queue.on('error', () => {});
    return queue;
  });
  const fair = createFairPriority(fairness);
  const failureLog = logThrottle(ENQUEUE_FAILURE_LOG_MS);
  let failedJobs = 0;

  function reportFailure(jobs: number, shard: number | null, error: unknown) {
    failedJobs += jobs;
    const { logger } = options;
    if (!logger) return;
    failureLog.run((suppressed) =>
      logger.warn(
        { err: error, jobs, ...(shard === null ? {} : { shard }), redis: connection.status, suppressed, failedJobs },
        'enqueue failed; the reconciler puts the work back once Redis answers',
      ),
    );
  }

  /** A match job's place in line (shared/queue/fair-priority.ts); other jobs, and old payloads, have none. */
  function priorityOf<N extends JobName>(name: N, payload: JobPayload<N>): number | undefined {
    if (name !== 'match-events') return undefined;
    const { providerId, eventIds } = payload as JobPayload<'match-events'>;
    return providerId === undefined ? undefined : fair.take(providerId, eventIds.length);
  }

  /** The shard of a payload handed in whole (evaluate-user by user; events not split by user by their first id). */
  function shardOfPayload<N extends JobName>(name: N, payload: JobPayload<N>): number {
    if (name === 'evaluate-user') return shardOf((payload as JobPayload<'evaluate-user'>).userId, shape.shards);
    if (name === 'process-event') return shardOf((payload as JobPayload<'process-event'>).eventId, shape.shards);
    return shardOf((payload as JobPayload<'match-events'>).eventIds[0]!, shape.shards);
  }

  /** Events by the shard of their sender's user (an event without one by its own id). */
  function eventsByShard(events: readonly EventRef[]): Map<number, EventRef[]> {
    return groupBy(events, (event) =>
      shardOf(event.userId === undefined ? event.eventId : senderKey(event.providerId, event.userId), shape.shards),
    );
  }

  async function add<N extends JobName>(shard: number, name: N, payloads: JobPayload<N>[]): Promise<boolean> {
    const jobs = payloads.map((payload) => ({
      name,
      data: jobPayloads[name].parse(payload),
      opts: { jobId: jobId[name](payload as never) as string | undefined, priority: priorityOf(name, payload) },
    }));
    try {
      await addJobs(queues[shard]!, jobs);
      return true;
    } catch (error) {
      reportFailure(jobs.length, shard, error);
      return false;
    }
  }

  async function enqueueByShard<N extends JobName>(name: N, byShard: Map<number, JobPayload<N>[]>): Promise<boolean> {
    const total = [...byShard.values()].reduce((sum, payloads) => sum + payloads.length, 0);
    if (total === 0) return true;
    // Known to be down (between reconnect attempts): give up at once. Waiting
    // the timeout would add a second to every request of an outage and leave
    // an add pending per request, all firing together when Redis returns.
    if (DOWN_STATES.has(connection.status)) {
      reportFailure(total, null, new Error(`redis ${connection.status}`));
      return false;
    }
    const added = await Promise.all([...byShard].map(([shard, payloads]) => add(shard, name, payloads)));
    return added.every(Boolean);
  }

  function enqueue<N extends JobName>(name: N, payloads: JobPayload<N>[]): Promise<boolean> {
    return enqueueByShard(
      name,
      groupBy(payloads, (payload) => shardOfPayload(name, payload)),
    );
  }

  // Concurrent ingest calls share their adds: every job costs the API, Redis and the worker a
  // fixed round of scripts whatever its size, and single events would otherwise be a job each.
  const enqueueEvents = coalesce((events: EventRef[]) =>
    enqueueByShard('match-events', new Map([...eventsByShard(events)].map(([shard, refs]) => [shard, eventBatches(refs)]))),
  );

  // A failed job is retried rather than re-added (its id is taken for an hour); a waiting or active one is left alone.
  async function requeue<N extends JobName>(shard: number, name: N, payload: JobPayload<N>, id: string): Promise<boolean> {
    const queue = queues[shard]!;
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

  const requeueUserEvaluation = (userId: ServiceUserId) =>
    requeue(shardOf(userId, shape.shards), 'evaluate-user', { userId }, jobId['evaluate-user']({ userId }));

  async function requeueEvents(events: readonly EventRef[]): Promise<number> {
    let requeued = 0;
    for (const [shard, refs] of eventsByShard(events)) {
      for (const payload of eventBatches(refs)) {
        const id = `pending-${createHash('sha1').update(payload.eventIds.join(',')).digest('hex')}`;
        if (await requeue(shard, 'match-events', payload, id)) requeued += payload.eventIds.length;
      }
    }
    return requeued;
  }

  /** A shard's oldest waiting job; its keys share the shard's hash slot, so one pipeline reads them. */
  async function oldestWaitingIn(queue: Queue): Promise<number | null> {
    // BullMQ pushes new jobs on the left of the wait list and serves from the right.
    const [oldestWaiting, nextPrioritized] = await withTimeout(
      Promise.all([
        connection.lrange(queue.keys.wait!, -1, -1),
        connection.zrange(queue.keys.prioritized!, 0, OLDEST_SAMPLE - 1),
      ]),
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

  async function oldestWaitingSince(): Promise<number | null> {
    if (DOWN_STATES.has(connection.status)) return null;
    const answers = await Promise.allSettled(queues.map(oldestWaitingIn));
    const stamps = answers.flatMap((answer) => (answer.status === 'fulfilled' && answer.value !== null ? [answer.value] : []));
    return stamps.length === 0 ? null : Math.min(...stamps);
  }

  async function getJobCounts(...states: string[]): Promise<Record<string, number>> {
    const perShard = await Promise.all(queues.map((queue) => queue.getJobCounts(...(states as JobType[]))));
    const sum: Record<string, number> = {};
    for (const counts of perShard) for (const [state, n] of Object.entries(counts)) sum[state] = (sum[state] ?? 0) + n;
    return sum;
  }

  return {
    enqueue,
    enqueueEvents,
    requeueUserEvaluation,
    requeueEvents,
    oldestWaitingSince,
    getJobCounts,
    probe: () =>
      probeQueueSlots(
        connection,
        queues.map((_, shard) => queueProbeKey(shape.matchingPrefix(shard), MATCHING_QUEUE)),
      ),
    get failedJobs() {
      return failedJobs;
    },
    queue: queues[0]!,
    queues,
    layout: shape,
    close: async () => {
      await Promise.all(queues.map((queue) => queue.close()));
    },
  };
}
