import { sql } from 'drizzle-orm';
import type { ServiceProcess } from '../../e2e/harness/service.js';
import { groupBy } from '../../shared/collections.js';
import { idArray } from '../../shared/db/sql-fragments.js';
import { eventBatches, type JobPayload } from '../../shared/queue/contract.js';
import { eventPartition } from '../../shared/queue/partitions.js';
import type { BenchContext } from '../harness/context.js';
import type { MatchingTenant } from './seed.js';

/** Events per job, as one group-committed ingest flush or batch call hands them over. */
const JOB_SIZE = 50;

export interface DrainFigure {
  events: number;
  seconds: number;
  eventsPerSecond: number;
  /** CPU seconds per 1,000 events: the workers together, and Postgres. */
  workerCpuPer1k: number;
  postgresCpuPer1k: number;
}

/**
 * Queues already stored, pending events as jobs of JOB_SIZE ids (what the API
 * would have enqueued) while the given workers run, and times them until none
 * of the tenant's events is pending.
 */
export async function drain(
  ctx: BenchContext,
  tenant: MatchingTenant,
  workers: readonly ServiceProcess[],
  eventIds: readonly string[],
  options: DrainOptions = {},
): Promise<DrainFigure> {
  const queues = ctx.openQueues();
  const producer = queues.matching;
  try {
    const byUser = options.byUser ? await jobsByUserPartition(ctx, tenant, eventIds, producer.layout.partitions) : null;
    const stops = await Promise.all(workers.map((worker) => ctx.meter.start(worker.pid)));
    const started = performance.now();
    if (byUser) {
      await Promise.all(
        [...byUser].map(([partition, jobs]) =>
          producer.queues[partition]!.addBulk(jobs.map((data) => ({ name: 'match-events', data }))),
        ),
      );
    } else {
      for (let i = 0; i < eventIds.length; i += 5000) {
        const jobs = [];
        for (let j = i; j < Math.min(i + 5000, eventIds.length); j += JOB_SIZE)
          jobs.push(
            ...eventBatches(eventIds.slice(j, j + JOB_SIZE).map((eventId) => ({ eventId, providerId: tenant.platformId }))),
          );
        // Spread over the partitions (by each job's first id) as the producer routes a job handed in whole.
        if (!(await producer.enqueue('match-events', jobs))) throw new Error('could not enqueue the drain');
      }
    }
    const during = options.during?.();
    const deadline = Date.now() + 10 * 60_000;
    const anyPending = pendingProbe(ctx, eventIds);
    while (await anyPending()) {
      if (Date.now() > deadline) throw new Error('drain did not finish in 10 minutes');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (during) {
      // Work made during the drain (re-evaluations) is part of it.
      await during;
      while ((await tenant.evaluating()) > 0) {
        if (Date.now() > deadline) throw new Error('drain did not finish in 10 minutes');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = await Promise.all(stops.map((stop) => stop()));
    const thousands = eventIds.length / 1000;
    return {
      events: eventIds.length,
      seconds,
      eventsPerSecond: eventIds.length / seconds,
      workerCpuPer1k: cpu.reduce((sum, use) => sum + use.api, 0) / thousands,
      // Every meter saw the same Postgres: take one.
      postgresCpuPer1k: cpu[0]!.postgres / thousands,
    };
  } finally {
    await queues.close();
  }
}

/**
 * A backlog as the API leaves it when no worker keeps up: the events are
 * enqueued first, through the producer's fair tags (jobs of 100 ids, as
 * group-committed single events), and left until the reconciler counts them
 * as old; only then does one worker start, timed until none is pending.
 */
export async function drainBacklog(
  ctx: BenchContext,
  tenant: MatchingTenant,
  eventIds: readonly string[],
): Promise<DrainFigure & { sinceEnqueueS: number }> {
  const queues = ctx.openQueues();
  const producer = queues.matching;
  try {
    const enqueued = performance.now();
    for (let i = 0; i < eventIds.length; i += 100) {
      const refs = eventIds.slice(i, i + 100).map((eventId) => ({ eventId, providerId: tenant.platformId }));
      if (!(await producer.enqueueEvents(refs))) throw new Error('enqueue failed');
    }
    const oldAfterMs = Number(ctx.env.RECONCILE_MIN_AGE_MS ?? 10_000) + 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, oldAfterMs - (performance.now() - enqueued))));
    const worker = await ctx.startWorker();
    try {
      const stop = await ctx.meter.start(worker.pid);
      const started = performance.now();
      const deadline = Date.now() + 15 * 60_000;
      const anyPending = pendingProbe(ctx, eventIds);
      while (await anyPending()) {
        if (Date.now() > deadline) throw new Error('backlog drain did not finish in 15 minutes');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const seconds = (performance.now() - started) / 1000;
      const cpu = await stop();
      const thousands = eventIds.length / 1000;
      return {
        events: eventIds.length,
        seconds,
        eventsPerSecond: eventIds.length / seconds,
        workerCpuPer1k: cpu.api / thousands,
        postgresCpuPer1k: cpu.postgres / thousands,
        sinceEnqueueS: (performance.now() - enqueued) / 1000,
      };
    } finally {
      await worker.stop();
    }
  } finally {
    await queues.close();
  }
}

/**
 * Whether any of `eventIds` is still pending, read through pending_events'
 * primary key from the first id not yet seen matched on (drains go roughly in
 * order), a couple of hundred rows a poll: counting the tenant's rows instead
 * scanned the table (no index on the provider), tens of milliseconds of
 * Postgres CPU every 20 ms poll, billed to the figure it measured.
 */
function pendingProbe(ctx: BenchContext, eventIds: readonly string[]): () => Promise<boolean> {
  const CHUNK = 200;
  let from = 0;
  return async () => {
    for (; from < eventIds.length; from += CHUNK) {
      const [row] = await ctx.database.db.execute<{ n: number }>(
        sql`select count(*)::int as n from pending_events where event_id = any(${idArray(eventIds.slice(from, from + CHUNK))})`,
      );
      if (row!.n > 0) return true;
    }
    return false;
  };
}

export interface DrainOptions {
  /** Runs beside the drain once its jobs are queued; the drain also waits for it and for the re-evaluations it causes. */
  during?: () => Promise<void>;
  /**
   * Jobs of JOB_SIZE ids put in their users' partitions, each partition's in
   * the events' order, as the API routes what it stores: a user's events are
   * then matched in order. Without it a job of many users goes to the
   * partition of its first id, so one user's events spread over partitions
   * and many arrive late.
   */
  byUser?: boolean;
}

/** The drain's jobs by their users' partitions (the senders read before the clock starts). */
async function jobsByUserPartition(
  ctx: BenchContext,
  tenant: MatchingTenant,
  eventIds: readonly string[],
  partitions: number,
): Promise<Map<number, JobPayload<'match-events'>[]>> {
  const rows = await ctx.database.db.execute<{ id: string; userId: string }>(
    sql`select id, user_id as "userId" from events where id = any(${idArray(eventIds)})`,
  );
  const senders = new Map(rows.map((row) => [row.id, row.userId]));
  // Where the producer puts each event (eventPartition), but in jobs of JOB_SIZE: its adds merge concurrent calls into jobs of up to 500.
  const byPartition = groupBy(eventIds, (eventId) =>
    eventPartition({ eventId, providerId: tenant.platformId, userId: senders.get(eventId)! }, partitions),
  );
  return new Map(
    [...byPartition].map(([partition, ids]) => {
      const jobs: JobPayload<'match-events'>[] = [];
      for (let i = 0; i < ids.length; i += JOB_SIZE)
        jobs.push({ eventIds: ids.slice(i, i + JOB_SIZE), providerId: tenant.platformId });
      return [partition, jobs];
    }),
  );
}

/** Stored events matched by freshly started workers (waited for until idle), which are stopped afterwards. */
export async function drainWith(
  ctx: BenchContext,
  workerCount: number,
  tenant: MatchingTenant,
  eventIds: readonly string[],
  options: DrainOptions = {},
): Promise<DrainFigure> {
  const workers: ServiceProcess[] = [];
  try {
    for (let i = 0; i < workerCount; i++) workers.push(await ctx.startWorker());
    return await drain(ctx, tenant, workers, eventIds, options);
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
  }
}
