import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RequestSeries } from './request-series.js';

/**
 * Prometheus metrics of both processes. Each factory builds its own Registry
 * (never prom-client's global one) so several apps in one test process do
 * not collide and each process exposes only what it measures.
 */

export interface MetricsExposition {
  contentType: string;
  body: string;
}

/** The slice of a BullMQ Queue the gauges need; kept structural so tests and other queues fit. */
export interface QueueCounts {
  getJobCounts(...states: string[]): Promise<Record<string, number>>;
}

export interface RequestSample {
  method: string;
  route: string;
  status: number;
  durationMs: number;
}

export type EventOutcome = 'received' | 'duplicate' | 'rejected';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
// A scrape must answer even while Redis is away: the queue gauges are then left out.
const QUEUE_PROBE_TIMEOUT_MS = 1000;
// Requests of this service take milliseconds; the long tail buckets catch a stalled database.
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
// Event-to-progress lag: normally well under a second, minutes when the worker was down.
const LAG_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900];
// Single events refused for their body (size, JSON, field): counted as rejected events too.
const SINGLE_EVENT_ROUTE = '/v1/events';
const BODY_REJECTIONS = new Set([400, 413, 415]);

function exposer(registry: Registry) {
  return async (): Promise<MetricsExposition> => ({ contentType: registry.contentType, body: await registry.metrics() });
}

export function createApiMetrics(options: { queue?: QueueCounts; defaultMetrics?: boolean } = {}) {
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

  const queue = options.queue;
  if (queue) {
    new Gauge({
      name: 'qcr_queue_jobs',
      help: 'Jobs in the matching queue by state (absent when Redis does not answer within a second).',
      labelNames: ['state'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        let timer: NodeJS.Timeout | undefined;
        try {
          const counts = await Promise.race([
            queue.getJobCounts(...QUEUE_STATES),
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new Error('queue probe timed out')), QUEUE_PROBE_TIMEOUT_MS);
            }),
          ]);
          for (const state of QUEUE_STATES) this.set({ state }, counts[state] ?? 0);
        } catch {
          // leave the gauge empty: a missing series is honest, a stale number is not
        } finally {
          clearTimeout(timer);
        }
      },
    });
  }

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

export function createWorkerMetrics(options: { defaultMetrics?: boolean } = {}) {
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

  return {
    registry,
    jobProcessed: (job: string) => processed.inc({ job }),
    jobFailed: (job: string) => failed.inc({ job }),
    /** For ProcessorDeps.onEventProcessed: `receivedUs` is the event's received_at in epoch microseconds. */
    eventProcessed(receivedUs: bigint, nowMs = Date.now()) {
      lag.observe(Math.max(0, nowMs / 1000 - Number(receivedUs) / 1e6));
    },
    exposition: exposer(registry),
  };
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;
