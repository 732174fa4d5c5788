import { createHash, randomUUID } from 'node:crypto';
import { type JobType, Queue } from 'bullmq';
import { coalesce } from '../async/coalesce.js';
import { withTimeout } from '../async/with-timeout.js';
import { groupBy } from '../collections.js';
import type { ServiceUserId } from '../domain/ids.js';
import { logThrottle } from '../observability/log-throttle.js';
import type { Logger } from '../observability/logger.js';
import { addJobs, ENQUEUE_TIMEOUT_MS, type QueuedJobs } from './add-jobs.js';
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
import { allPartitions, eventPartition, partitionOf, plainLayout, type QueueLayout } from './partitions.js';
import { probeQueueSlots, queueProbeKey } from './readiness.js';

export interface MatchingProducer {
  /** Best effort: resolves false instead of throwing when Redis is unavailable (logged, counted); the reconciler covers the gap. */
  enqueue<N extends JobName>(name: N, payloads: JobPayload<N>[]): Promise<boolean>;
  /** Best effort, like enqueue: one job per partition, provider and MAX_EVENTS_PER_JOB ids, in its provider's fair turn (fair-priority.ts). */
  enqueueEvents(events: readonly EventRef[]): Promise<boolean>;
  /** Puts a user's failed evaluation back in line, or adds it when it is gone; used by the reconciler. True when it did either. */
  requeueUserEvaluation(userId: string): Promise<boolean>;
  /**
   * The reconciler's add for a page of pending events: one job per partition and provider, whose id is derived
   * from its ids, so the same page found again while its job still waits is not added twice.
   * Answers how many of the events it put back (added or retried), the others being queued already.
   */
  requeueEvents(events: readonly EventRef[]): Promise<number>;
  /**
   * When the oldest job still waiting its turn was added (epoch ms), or null when none waits, over every
   * partition that answers: each one's wait list's oldest and next OLDEST_SAMPLE prioritized ones are looked at.
   */
  oldestWaitingSince(): Promise<number | null>;
  /** Resolves when every partition's hash slot takes a write (readiness); rejects naming the first that did not. */
  probe(): Promise<void>;
  /** Job counts by state, summed over the partitions (the qcr_queue_jobs gauge, the CLI, matching-first). */
  getJobCounts(...states: string[]): Promise<Record<string, number>>;
  /** Job counts by state of each partition, by partition number (the CLI). */
  getJobCountsByPartition(...states: string[]): Promise<Record<string, number>[]>;
  /** Jobs given up on since the process started (Redis away, timed out, refused): qcr_enqueue_failures_total. */
  readonly failedJobs: number;
  /** Partition 0's queue (single-partition tools and tests). */
  readonly queue: Queue;
  /** The queue of one partition, made on first use: a process adds to only the partitions its users fall in. */
  queueOf(partition: number): Queue;
  /** Every partition's queue, by partition number (each made now if it was not yet). */
  readonly queues: readonly Queue[];
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
// A job in these states has not begun its work yet (delayed: waiting out a retry's backoff).
const YET_TO_START = new Set<string>(['waiting', 'prioritized', 'delayed', 'waiting-children']);

/** Defaults of MATCH_FAIR_WINDOW_MS and MATCH_FAIR_QUIET_EVENTS (shared/config.ts). */
const DEFAULT_FAIRNESS = { windowMs: 10_000, quietEvents: 100 };

/**
 * The matching queue's producer, over MATCHING_PARTITIONS queues
 * (shared/queue/partitions.ts): each job goes to its user's partition. One fair
 * accounting covers every partition, so a provider's rate is judged on all its
 * events and its tags still never decrease within any partition. The queues
 * share the one connection and are made on first use.
 * `layout` may be a bare prefix: one partition on one Redis (tests, tools).
 */
export function createMatchingProducer(
  connection: RedisClient,
  layout: QueueLayout | string,
  fairness: FairnessOptions = DEFAULT_FAIRNESS,
  options: ProducerOptions = {},
): MatchingProducer {
  const shape = typeof layout === 'string' ? plainLayout(layout) : layout;
  const made = new Map<number, Queue>();
  const queueOf = (partition: number): Queue => {
    let queue = made.get(partition);
    if (!queue) {
      queue = new Queue(MATCHING_QUEUE, { connection, prefix: shape.matchingPrefix(partition), defaultJobOptions });
      // Every failed call is reported where it is made (enqueue, requeue); the queue's own event would repeat it.
      queue.on('error', () => {});
      made.set(partition, queue);
    }
    return queue;
  };
  const everyQueue = () => allPartitions(shape.partitions).map(queueOf);
  const fair = createFairPriority(fairness);
  const failureLog = logThrottle(ENQUEUE_FAILURE_LOG_MS);
  const followUpFailureLog = logThrottle(ENQUEUE_FAILURE_LOG_MS);
  let failedJobs = 0;

  function reportFailure(jobs: number, partition: number | null, error: unknown) {
    failedJobs += jobs;
    const { logger } = options;
    if (!logger) return;
    failureLog.run((suppressed) =>
      logger.warn(
        { err: error, jobs, ...(partition === null ? {} : { partition }), redis: connection.status, suppressed, failedJobs },
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

  /** The partition of a payload handed in whole (evaluate-user by user; events not split by user by their first id). */
  function partitionOfPayload<N extends JobName>(name: N, payload: JobPayload<N>): number {
    if (name === 'evaluate-user') return partitionOf((payload as JobPayload<'evaluate-user'>).userId, shape.partitions);
    if (name === 'process-event') return partitionOf((payload as JobPayload<'process-event'>).eventId, shape.partitions);
    return partitionOf((payload as JobPayload<'match-events'>).eventIds[0]!, shape.partitions);
  }

  /** Events by the partition of their sender's user (an event without one by its own id). */
  function eventsByPartition(events: readonly EventRef[]): Map<number, EventRef[]> {
    return groupBy(events, (event) => eventPartition(event, shape.partitions));
  }

  async function add<N extends JobName>(partition: number, name: N, payloads: JobPayload<N>[]): Promise<boolean> {
    const jobs = payloads.map((payload) => ({
      name,
      data: jobPayloads[name].parse(payload),
      opts: { jobId: jobId[name](payload as never) as string | undefined, priority: priorityOf(name, payload) },
    }));
    try {
      await addJobs(queueOf(partition), jobs);
    } catch (error) {
      reportFailure(jobs.length, partition, error);
      return false;
    }
    // The adds stand: a follow-up that fails leaves a running job's user to the reconciler, as before it existed.
    if (name === 'evaluate-user')
      await followUpStartedEvaluations(queueOf(partition), jobs).catch((error: unknown) =>
        followUpFailureLog.run((suppressed) =>
          options.logger?.warn(
            { err: error, jobs: jobs.length, partition, suppressed },
            'evaluation follow-up not added; the reconciler re-evaluates the user',
          ),
        ),
      );
    return true;
  }

  /**
   * An evaluation's add is ignored while a job of its user's id is still in the queue. One that waits will
   * read the user after the caller's commit, which is all the add asked for; one already running may have
   * read the flag before it, and would leave it raised for the reconciler (RECONCILE_INTERVAL_MS later:
   * seen as whole seconds of a reversal's re-evaluations). Such a user gets a job of its own, id made unique.
   */
  async function followUpStartedEvaluations(queue: Queue, jobs: QueuedJobs): Promise<void> {
    const states = await withTimeout(
      Promise.all(jobs.map((job) => queue.getJobState(job.opts!.jobId!))),
      ENQUEUE_TIMEOUT_MS,
      'enqueue timed out',
    );
    const again = jobs.filter((_, i) => !YET_TO_START.has(states[i]!));
    if (again.length > 0)
      await addJobs(
        queue,
        again.map((job) => ({ ...job, opts: { ...job.opts, jobId: `${job.opts!.jobId!}-again-${randomUUID()}` } })),
      );
  }

  async function enqueueByPartition<N extends JobName>(name: N, byPartition: Map<number, JobPayload<N>[]>): Promise<boolean> {
    const total = [...byPartition.values()].reduce((sum, payloads) => sum + payloads.length, 0);
    if (total === 0) return true;
    // Known to be down (between reconnect attempts): give up at once. Waiting
    // the timeout would add a second to every request of an outage and leave
    // an add pending per request, all firing together when Redis returns.
    if (DOWN_STATES.has(connection.status)) {
      reportFailure(total, null, new Error(`redis ${connection.status}`));
      return false;
    }
    const added = await Promise.all([...byPartition].map(([partition, payloads]) => add(partition, name, payloads)));
    return added.every(Boolean);
  }

  function enqueue<N extends JobName>(name: N, payloads: JobPayload<N>[]): Promise<boolean> {
    return enqueueByPartition(
      name,
      groupBy(payloads, (payload) => partitionOfPayload(name, payload)),
    );
  }

  // Concurrent ingest calls share their adds: every job costs the API, Redis and the worker a
  // fixed round of scripts whatever its size, and single events would otherwise be a job each.
  const enqueueEvents = coalesce((events: EventRef[]) =>
    enqueueByPartition(
      'match-events',
      new Map([...eventsByPartition(events)].map(([partition, refs]) => [partition, eventBatches(refs)])),
    ),
  );

  // A failed job is retried rather than re-added (its id is taken for an hour); a waiting or active one is left alone.
  async function requeue<N extends JobName>(partition: number, name: N, payload: JobPayload<N>, id: string): Promise<boolean> {
    const queue = queueOf(partition);
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
    requeue(partitionOf(userId, shape.partitions), 'evaluate-user', { userId }, jobId['evaluate-user']({ userId }));

  async function requeueEvents(events: readonly EventRef[]): Promise<number> {
    let requeued = 0;
    for (const [partition, refs] of eventsByPartition(events)) {
      for (const payload of eventBatches(refs)) {
        const id = `pending-${createHash('sha1').update(payload.eventIds.join(',')).digest('hex')}`;
        if (await requeue(partition, 'match-events', payload, id)) requeued += payload.eventIds.length;
      }
    }
    return requeued;
  }

  /** A partition's oldest waiting job; its keys share the partition's hash slot, so one pipeline reads them. */
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
    const answers = await Promise.allSettled(everyQueue().map(oldestWaitingIn));
    const stamps = answers.flatMap((answer) => (answer.status === 'fulfilled' && answer.value !== null ? [answer.value] : []));
    return stamps.length === 0 ? null : Math.min(...stamps);
  }

  const getJobCountsByPartition = (...states: string[]) =>
    Promise.all(everyQueue().map((queue) => queue.getJobCounts(...(states as JobType[]))));

  async function getJobCounts(...states: string[]): Promise<Record<string, number>> {
    const sum: Record<string, number> = {};
    for (const counts of await getJobCountsByPartition(...states))
      for (const [state, n] of Object.entries(counts)) sum[state] = (sum[state] ?? 0) + n;
    return sum;
  }

  return {
    enqueue,
    enqueueEvents,
    requeueUserEvaluation,
    requeueEvents,
    oldestWaitingSince,
    getJobCounts,
    getJobCountsByPartition,
    // Every partition's slot, even on what should be one Redis: a client pointed at one node of a cluster by
    // mistake reaches some slots and not others, and must not look ready.
    probe: () =>
      probeQueueSlots(
        connection,
        allPartitions(shape.partitions).map((partition) => queueProbeKey(shape.matchingPrefix(partition), MATCHING_QUEUE)),
      ),
    get failedJobs() {
      return failedJobs;
    },
    get queue() {
      return queueOf(0);
    },
    queueOf,
    get queues() {
      return everyQueue();
    },
    layout: shape,
    close: async () => {
      await Promise.all([...made.values()].map((queue) => queue.close()));
    },
  };
}
