import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import {
  liveStreamsGauge,
  noticesServingGauge,
  type PendingEventsBacklog,
  pendingEventsGauges,
  type QueueCounts,
  queueJobsGauge,
  type RedisClientState,
  redisUpGauge,
} from './operator-gauges.js';
import { RequestSeries } from './request-series.js';

/**
 * Prometheus metrics of both processes. Each factory builds its own Registry
 * (never prom-client's global one) so several apps in one test process do
 * not collide and each process exposes only what it measures.
 */

/** @public named by the declarations of the wiring functions that return it */
export interface MetricsExposition {
  contentType: string;
  body: string;
}

export interface RequestSample {
  method: string;
  route: string;
  status: number;
  durationMs: number;
}

export type EventOutcome = 'received' | 'duplicate' | 'rejected';

// Readings from Redis and Postgres are taken at most this often, whatever the scrape rate.
const DEFAULT_SAMPLE_MS = 1000;
// Counting a large backlog is a scan: sampled less often, and counted only up to this many.
const DEFAULT_PENDING_SAMPLE_MS = 5000;
export const PENDING_COUNT_CAP = 1_000_000;
// Requests of this service take milliseconds; the long tail buckets catch a stalled database.
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
// Event-to-progress lag: normally well under a second, minutes when the worker was down.
const LAG_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900];
// Single events refused for their body (size, JSON, field): counted as rejected events too.
const SINGLE_EVENT_ROUTE = '/v1/events';
const BODY_REJECTIONS = new Set([400, 413, 415]);

/**
 * qcr_enqueue_failures_total: matching jobs the producer gave up adding (Redis away, slow, refusing a
 * slot); read from the producer's own count, which only grows, at each scrape.
 */
function enqueueFailuresCounter(registry: Registry, read: () => number) {
  new Counter({
    name: 'qcr_enqueue_failures_total',
    help: 'Matching jobs not enqueued (Redis unavailable, timed out or refusing); the reconciler puts their work back from Postgres.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

function exposer(registry: Registry) {
  return async (): Promise<MetricsExposition> => ({ contentType: registry.contentType, body: await registry.metrics() });
}

export interface ApiMetricsOptions {
  queue?: QueueCounts;
  /** Open GET /v1/live streams of this process. */
  liveStreams?: () => number;
  /** Whether change notices are proved to arrive (qcr_answer_cache_serving). */
  noticesServing?: () => boolean;
  /** This process's Redis clients by role, for qcr_redis_up. */
  redis?: Record<string, RedisClientState>;
  /** Matching jobs the producer failed to add so far (qcr_enqueue_failures_total). */
  enqueueFailures?: () => number;
  defaultMetrics?: boolean;
  /** Least time between two readings of the queue (default 1 s); tests use 0. */
  sampleMs?: number;
}

export function createApiMetrics(options: ApiMetricsOptions = {}) {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry });

  // `route` is the route template (/v1/quest-chains/active/:platformUserId), never the raw path, so label values stay few.
  const requests = new RequestSeries(LATENCY_BUCKETS, {
    counter: 'qcr_http_requests_total',
    counterHelp: 'HTTP requests answered, by method, route template and status.',
    histogram: 'qcr_http_request_duration_seconds',
    histogramHelp: 'Time from request start to response, by method, route template and status.',
  });
  requests.register(registry);
  const events = new Counter({
    name: 'qcr_events_total',
    help: 'Events submitted, by outcome: received (new), duplicate, rejected (invalid batch item or invalid single event).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of ['received', 'duplicate', 'rejected'] as const) events.inc({ outcome }, 0);

  if (options.queue) queueJobsGauge(registry, options.queue, options.sampleMs ?? DEFAULT_SAMPLE_MS);
  if (options.liveStreams) liveStreamsGauge(registry, options.liveStreams);
  if (options.noticesServing) noticesServingGauge(registry, options.noticesServing);
  if (options.redis) redisUpGauge(registry, options.redis);
  if (options.enqueueFailures) enqueueFailuresCounter(registry, options.enqueueFailures);

  return {
    registry,
    /** Called by the request context once per finished request. */
    observeRequest(sample: RequestSample) {
      requests.observe(sample.method, sample.route, sample.status, sample.durationMs / 1000);
      if (sample.route === SINGLE_EVENT_ROUTE && sample.method === 'POST' && BODY_REJECTIONS.has(sample.status)) {
        events.inc({ outcome: 'rejected' });
      }
    },
    countEvents(outcome: EventOutcome, count = 1) {
      if (count > 0) events.inc({ outcome }, count);
    },
    exposition: exposer(registry),
  };
}

export type ApiMetrics = ReturnType<typeof createApiMetrics>;

export interface WorkerMetricsOptions {
  queue?: QueueCounts;
  redis?: Record<string, RedisClientState>;
  /** Matching jobs the producer (the reconciler's) failed to add so far (qcr_enqueue_failures_total). */
  enqueueFailures?: () => number;
  /** The pending-event backlog (a data-module read); sampled, so a scrape never costs a count. */
  pendingEvents?: () => Promise<PendingEventsBacklog>;
  defaultMetrics?: boolean;
  /** Least time between two readings (defaults: queue 1 s, backlog 5 s); tests use 0. */
  sampleMs?: number;
}

export function createWorkerMetrics(options: WorkerMetricsOptions = {}) {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry });

  const processed = new Counter({
    name: 'qcr_worker_jobs_processed_total',
    help: 'Jobs finished successfully, by job name.',
    labelNames: ['job'] as const,
    registers: [registry],
  });
  const failed = new Counter({
    name: 'qcr_worker_jobs_failed_total',
    help: 'Job attempts that failed (each retry counts), by job name.',
    labelNames: ['job'] as const,
    registers: [registry],
  });
  const lag = new Histogram({
    name: 'qcr_event_progress_lag_seconds',
    help: "Seconds from an event's received_at to the worker committing its progress.",
    buckets: LAG_BUCKETS,
    registers: [registry],
  });
  const requeued = new Counter({
    name: 'qcr_reconciler_requeued_total',
    help: 'Work the reconciler found pending in Postgres and put back on the queue, by kind: events, users (evaluations).',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  for (const kind of ['events', 'users'] as const) requeued.inc({ kind }, 0);
  const batchUsers = new Counter({
    name: 'qcr_match_batch_users_total',
    help: "Users of committed matching batches, by where their walks came from: kept (the worker's walk cache, MATCH_WALKS_KEPT) or loaded (read from Postgres).",
    labelNames: ['walks'] as const,
    registers: [registry],
  });
  for (const walks of ['kept', 'loaded'] as const) batchUsers.inc({ walks }, 0);
  if (options.queue) queueJobsGauge(registry, options.queue, options.sampleMs ?? DEFAULT_SAMPLE_MS);
  if (options.redis) redisUpGauge(registry, options.redis);
  if (options.enqueueFailures) enqueueFailuresCounter(registry, options.enqueueFailures);
  if (options.pendingEvents) pendingEventsGauges(registry, options.pendingEvents, options.sampleMs ?? DEFAULT_PENDING_SAMPLE_MS);
  const partitions = partitionMetrics(registry);

  return {
    registry,
    /** Where the partitions gauges read what this worker consumes (its partition leases, once they run). */
    partitionsFrom: partitions.readFrom,
    /** A partition lease taken, handed back or lost by this worker. */
    partitionChanged: partitions.changed,
    /** For the reconciler: what one pass put back. */
    reconciled(counts: { events: number; users: number }) {
      if (counts.events > 0) requeued.inc({ kind: 'events' }, counts.events);
      if (counts.users > 0) requeued.inc({ kind: 'users' }, counts.users);
    },
    jobProcessed: (job: string) => processed.inc({ job }),
    walksRead(kept: number, loaded: number) {
      if (kept > 0) batchUsers.inc({ walks: 'kept' }, kept);
      if (loaded > 0) batchUsers.inc({ walks: 'loaded' }, loaded);
    },
    jobFailed: (job: string) => failed.inc({ job }),
    /** For ProcessorDeps.onEventProcessed: `receivedUs` is the event's received_at in epoch microseconds. */
    eventProcessed(receivedUs: bigint, nowMs = Date.now()) {
      lag.observe(Math.max(0, nowMs / 1000 - Number(receivedUs) / 1e6));
    },
    exposition: exposer(registry),
  };
}

/** A matching partition a worker consumes: by lease since `since` (Date.now()), or pinned. */
export interface ConsumedPartition {
  partition: number;
  since: number;
  pinned: boolean;
}

/** Who holds which matching partition, as this worker sees it (docs/operations.md, "Metrics"). */
function partitionMetrics(registry: Registry) {
  let read: () => readonly ConsumedPartition[] = () => [];
  new Gauge({
    name: 'qcr_worker_partitions_held',
    help: 'Matching partitions this worker consumes, by how: lease (its share) or pinned (WORKER_SHARDS).',
    labelNames: ['by'] as const,
    registers: [registry],
    collect() {
      const held = read();
      this.set({ by: 'lease' }, held.filter((p) => !p.pinned).length);
      this.set({ by: 'pinned' }, held.filter((p) => p.pinned).length);
    },
  });
  new Gauge({
    name: 'qcr_worker_partition_lease_age_seconds',
    help: 'How long this worker has held each matching partition it consumes (since it took the lease, or started, pinned).',
    labelNames: ['partition'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const now = Date.now();
      for (const held of read()) this.set({ partition: String(held.partition) }, Math.max(0, (now - held.since) / 1000));
    },
  });
  const changes = new Counter({
    name: 'qcr_worker_partition_changes_total',
    help: 'Matching partition leases this worker took (acquired), handed over (released) or gave up unrenewed (lost).',
    labelNames: ['change'] as const,
    registers: [registry],
  });
  for (const change of ['acquired', 'released', 'lost'] as const) changes.inc({ change }, 0);
  return {
    readFrom(source: () => readonly ConsumedPartition[]) {
      read = source;
    },
    changed(change: 'acquired' | 'released' | 'lost') {
      changes.inc({ change });
    },
  };
}
