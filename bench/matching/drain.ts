import { sql } from 'drizzle-orm';
import type { ServiceProcess } from '../../e2e/harness/service.js';
import { groupBy } from '../../shared/collections.js';
import { idArray } from '../../shared/db/sql-fragments.js';
import type { JobPayload } from '../../shared/queue/contract.js';
import { eventPartition } from '../../shared/queue/partitions.js';
import type { BenchContext } from '../harness/context.js';
import { type ChainLanguage, type MatchingTenant, matchingTenant, roundRobin } from './seed.js';

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
 * Queues already stored, pending events as jobs of JOB_SIZE ids in their
 * users' partitions (what the API would have enqueued: it routes each event
 * by its sender's user, so a user's events reach its partition in order)
 * while the given workers run, and times them until none of the tenant's
 * events is pending. Until 2026-11-28 a drain put each job of many users in
 * the partition of its first id: a user's events then spread over the
 * partitions and many came late, and a late event on a tallied walk is redone
 * from history (docs/performance.md).
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
    const byPartition = eventsInUserPartitions(tenant, eventIds, producer.layout.partitions);
    const stops = await Promise.all(workers.map((worker) => ctx.meter.start(worker.pid)));
    const started = performance.now();
    await Promise.all(
      [...byPartition].map(([partition, refs]) => {
        const jobs: JobPayload<'match-events'>[] = [];
        for (let i = 0; i < refs.length; i += JOB_SIZE)
          jobs.push({ eventIds: refs.slice(i, i + JOB_SIZE).map((ref) => ref.eventId), providerId: tenant.platformId });
        return producer.queues[partition]!.addBulk(jobs.map((data) => ({ name: 'match-events', data })));
      }),
    );
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
    const byPartition = eventsInUserPartitions(tenant, eventIds, producer.layout.partitions);
    const enqueued = performance.now();
    // A call of one partition's events makes one job (of up to 100 ids): the producer routes them by user itself.
    for (const [, refs] of byPartition) {
      for (let i = 0; i < refs.length; i += 100) {
        const call = refs.slice(i, i + 100).map((ref) => ({ ...ref, providerId: tenant.platformId }));
        if (!(await producer.enqueueEvents(call))) throw new Error('enqueue failed');
      }
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
}

/** The events by their users' partitions, each partition's in the order given. */
function eventsInUserPartitions(
  tenant: MatchingTenant,
  eventIds: readonly string[],
  partitions: number,
): Map<number, { eventId: string; userId: string }[]> {
  const refs = eventIds.map((eventId) => ({ eventId, userId: tenant.senderOf(eventId) }));
  return groupBy(refs, (ref) => eventPartition({ ...ref, providerId: tenant.platformId }, partitions));
}

/**
 * Stored events matched by freshly started workers (waited for until idle),
 * which are stopped afterwards. Before the clock starts the workers match a
 * warm-up of their own (warmUp): a drain of 40,000 events lasts a few
 * seconds, and a process's first seconds go largely to V8 compiling its hot
 * code (docs/scaling.md, "What three workers pay"), which a worker that has
 * run for a while has done.
 */
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
    await warmUp(ctx, workers, tenant.language);
    return await drain(ctx, tenant, workers, eventIds, options);
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
  }
}

/** Warm-up events a user, for the warm-up tenant's 200 users: 5,000 a warm-up. */
const WARM_UP_PER_USER = 25;

/** A run's warm-up tenants, one per chain language, with the next position in their users' sequences. */
const warmUpTenants = new WeakMap<BenchContext, Map<ChainLanguage, { tenant: MatchingTenant; next: number }>>();

/** New events of a tenant of its own (the measured tenant's chain language), matched by `workers` and not timed. */
async function warmUp(ctx: BenchContext, workers: readonly ServiceProcess[], language: ChainLanguage): Promise<void> {
  let tenants = warmUpTenants.get(ctx);
  if (!tenants) warmUpTenants.set(ctx, (tenants = new Map()));
  let warm = tenants.get(language);
  if (!warm) tenants.set(language, (warm = { tenant: await matchingTenant(ctx, `warm-up-${language}`, 200, language), next: 0 }));
  const ids = await warm.tenant.store(roundRobin(warm.tenant.users, WARM_UP_PER_USER, warm.next));
  warm.next += WARM_UP_PER_USER;
  await drain(ctx, warm.tenant, workers, ids);
}
