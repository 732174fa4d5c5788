import { Gauge, type Registry } from 'prom-client';
import { sampled } from './sampled.js';

/**
 * Gauges of the machinery around the request path, shared by the API and
 * worker registries (docs/operations.md, "Metrics"): queue depth, Redis
 * connections, the pending-event backlog, open live streams.
 */

/** The slice of a BullMQ Queue the queue gauge needs; kept structural so tests and other queues fit. */
export interface QueueCounts {
  getJobCounts(...states: string[]): Promise<Record<string, number>>;
}

/** What an ioredis client exposes of its connection. */
export interface RedisClientState {
  readonly status: string;
}

export interface PendingEventsBacklog {
  /** Pending markers, counted up to a cap (the gauge saturates there). */
  count: number;
  /** Receipt time of the oldest pending event, epoch microseconds; null when none waits. */
  oldestReceivedUs: bigint | null;
}

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
// A scrape must answer even while Redis or Postgres is away: a reading gets this long.
const PROBE_TIMEOUT_MS = 1000;

export function queueJobsGauge(registry: Registry, queue: QueueCounts, sampleMs: number) {
  // Match jobs wait as BullMQ "prioritized" (fair queuing, shared/queue/fair-priority.ts): to an operator that is waiting too.
  const counts = sampled(() => queue.getJobCounts(...QUEUE_STATES, 'prioritized'), {
    maxAgeMs: sampleMs,
    timeoutMs: PROBE_TIMEOUT_MS,
  });
  new Gauge({
    name: 'qcr_queue_jobs',
    help: 'Jobs in the matching queue (every shard) by state, read at most once per sampling interval (absent when Redis does not answer within a second).',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const current = await counts();
      if (!current) return;
      for (const state of QUEUE_STATES)
        this.set({ state }, (current[state] ?? 0) + (state === 'waiting' ? (current.prioritized ?? 0) : 0));
    },
  });
}

/** 1 while the client's connection is ready for commands, 0 while it connects, reconnects or is closed. */
export function redisUpGauge(registry: Registry, clients: Record<string, RedisClientState>) {
  new Gauge({
    name: 'qcr_redis_up',
    help: 'Redis connection state per client of this process: 1 ready, 0 otherwise (connecting, reconnecting, closed).',
    labelNames: ['client'] as const,
    registers: [registry],
    collect() {
      for (const [client, redis] of Object.entries(clients)) this.set({ client }, redis.status === 'ready' ? 1 : 0);
    },
  });
}

export function pendingEventsGauges(registry: Registry, read: () => Promise<PendingEventsBacklog>, sampleMs: number) {
  const backlog = sampled(read, { maxAgeMs: sampleMs, timeoutMs: PROBE_TIMEOUT_MS });
  new Gauge({
    name: 'qcr_pending_events',
    help: 'Stored events not yet matched (pending_events rows), sampled; absent when Postgres does not answer within a second.',
    registers: [registry],
    async collect() {
      this.reset();
      const current = await backlog();
      if (current) this.set(current.count);
    },
  });
  new Gauge({
    name: 'qcr_pending_events_oldest_age_seconds',
    help: 'Age of the oldest unmatched event (0 when none waits), sampled with qcr_pending_events.',
    registers: [registry],
    async collect() {
      this.reset();
      const current = await backlog();
      if (!current) return;
      this.set(current.oldestReceivedUs === null ? 0 : Math.max(0, Date.now() / 1000 - Number(current.oldestReceivedUs) / 1e6));
    },
  });
}

export function liveStreamsGauge(registry: Registry, openStreams: () => number) {
  new Gauge({
    name: 'qcr_live_streams',
    help: 'GET /v1/live streams open on this API process.',
    registers: [registry],
    collect() {
      this.set(openStreams());
    },
  });
}

export function noticesServingGauge(registry: Registry, serving: () => boolean) {
  new Gauge({
    name: 'qcr_answer_cache_serving',
    help: '1 while every change-notice channel answers its probes and cached GET active answers are served; 0 while reads go uncached.',
    registers: [registry],
    collect() {
      this.set(serving() ? 1 : 0);
    },
  });
}
