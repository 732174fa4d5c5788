import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../e2e/harness/stack.js';
import { insertOrFindEvents, pendingEventsBacklog } from '../shared/db/event-store.js';
import { pendingEvents } from '../shared/db/schema/index.js';
import { senderUserId } from '../shared/domain/ids.js';
import { createWorkerMetrics } from '../shared/observability/metrics.js';
import { eventually } from '../shared/testing/eventually.js';
import { useTestData } from '../shared/testing/test-data.js';
import { startHealthServer } from './health-server.js';

/** The value of one sample line; 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('worker health server', () => {
  const metrics = createWorkerMetrics();
  let ready = true;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      isShuttingDown: () => false,
      ready: async () => {
        if (!ready) throw new Error('postgres down');
      },
      metrics: metrics.exposition,
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers liveness and readiness', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    ready = false;
    const notReady = await fetch(`${base}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toMatchObject({ success: false, code: 'unavailable' });
    ready = true;
  });

  it('serves the worker metrics, counters moving with what is recorded', async () => {
    const before = await (await fetch(`${base}/metrics`)).text();
    for (const name of ['qcr_worker_jobs_processed_total', 'qcr_worker_jobs_failed_total', 'qcr_event_progress_lag_seconds']) {
      expect(before).toContain(`# TYPE ${name} `);
    }
    metrics.jobProcessed('match-events');
    metrics.jobFailed('evaluate-user');
    const receivedUs = BigInt(Date.now() - 1500) * 1000n;
    metrics.eventProcessed(receivedUs);
    const response = await fetch(`${base}/metrics`);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const after = await response.text();
    expect(sample(after, 'qcr_worker_jobs_processed_total{job="match-events"}')).toBe(1);
    expect(sample(after, 'qcr_worker_jobs_failed_total{job="evaluate-user"}')).toBe(1);
    expect(sample(after, 'qcr_event_progress_lag_seconds_count')).toBe(1);
    // 1.5 s lag: outside the 1 s bucket, inside the 2 s one.
    expect(sample(after, 'qcr_event_progress_lag_seconds_bucket{le="1"}')).toBe(0);
    expect(sample(after, 'qcr_event_progress_lag_seconds_bucket{le="2"}')).toBe(1);
  });
});

describe('the durability gauges', () => {
  const { database, platform } = useTestData('worker_backlog_metrics');
  const scrape = async (metrics: ReturnType<typeof createWorkerMetrics>) => (await metrics.exposition()).body;

  it('reports the pending-event backlog: its size and the age of its oldest event', async () => {
    let reads = 0;
    const read = () => {
      reads += 1;
      return pendingEventsBacklog(database.db, 1_000_000);
    };
    const metrics = createWorkerMetrics({ pendingEvents: read, sampleMs: 0 });
    expect(sample(await scrape(metrics), 'qcr_pending_events')).toBe(0);
    expect(sample(await scrape(metrics), 'qcr_pending_events_oldest_age_seconds')).toBe(0);

    const at = (second: number) => BigInt(Date.parse(`2026-01-01T00:00:0${second}Z`)) * 1000n;
    await insertOrFindEvents(
      database.db,
      [1, 2, 3].map((second) => ({
        providerId: platform.id,
        userId: senderUserId('backlog-user'),
        eventType: 'kyc',
        occurredAt: at(second),
      })),
    );
    // The oldest marker was received 90 s ago (a stalled worker), the others just now.
    const [oldest] = await database.db.select({ eventId: pendingEvents.eventId }).from(pendingEvents).limit(1);
    await database.db
      .update(pendingEvents)
      .set({ receivedAt: BigInt(Date.now() - 90_000) * 1000n })
      .where(eq(pendingEvents.eventId, oldest!.eventId));
    const text = await scrape(metrics);
    expect(sample(text, 'qcr_pending_events')).toBe(3);
    expect(sample(text, 'qcr_pending_events_oldest_age_seconds')).toBeGreaterThanOrEqual(90);
    expect(reads).toBeGreaterThan(0);
  });

  it('counts at most to its cap, and reads Postgres at most once per sampling interval', async () => {
    expect((await pendingEventsBacklog(database.db, 2)).count).toBe(2);
    let reads = 0;
    const metrics = createWorkerMetrics({
      pendingEvents: () => {
        reads += 1;
        return pendingEventsBacklog(database.db, 1_000_000);
      },
      sampleMs: 60_000,
    });
    await Promise.all([scrape(metrics), scrape(metrics)]);
    await scrape(metrics);
    // Two gauges, three scrapes (two at once): one reading.
    expect(reads).toBe(1);
  });

  it('counts what the reconciler put back, by kind', async () => {
    const metrics = createWorkerMetrics();
    expect(await scrape(metrics)).toContain('qcr_reconciler_requeued_total{kind="events"} 0');
    metrics.reconciled({ events: 7, users: 2 });
    metrics.reconciled({ events: 1, users: 0 });
    const text = await scrape(metrics);
    expect(sample(text, 'qcr_reconciler_requeued_total{kind="events"}')).toBe(8);
    expect(sample(text, 'qcr_reconciler_requeued_total{kind="users"}')).toBe(2);
  });

  it('counts the users of committed batches by where their walks came from', async () => {
    const metrics = createWorkerMetrics();
    expect(await scrape(metrics)).toContain('qcr_match_batch_users_total{walks="kept"} 0');
    metrics.walksRead(0, 5);
    metrics.walksRead(3, 1);
    const text = await scrape(metrics);
    expect(sample(text, 'qcr_match_batch_users_total{walks="kept"}')).toBe(3);
    expect(sample(text, 'qcr_match_batch_users_total{walks="loaded"}')).toBe(6);
  });
});

describe('the worker process', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack('worker_metrics');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('counts processed jobs and the event-to-progress lag on its health port', async () => {
    const worker = stack.workers[0]!;
    const started = worker
      .lines()
      .map((line) => /"healthPort":(\d+).*"msg":"worker started"/.exec(line))
      .find(Boolean);
    expect(started).toBeTruthy();
    const metricsUrl = `http://127.0.0.1:${started![1]}/metrics`;

    const platform = await stack.createProvider('platform');
    const sent = await stack.call('POST', '/v1/events', {
      headers: { ...platform.headers, 'x-request-id': 'req-metrics-kyc-1' },
      body: { user_id: 'metrics-user', event_type: 'kyc', timestamp: '2026-01-01T00:00:00Z' },
    });
    expect(sent.status).toBe(200);

    const text = await eventually(
      async () => {
        const body = await (await fetch(metricsUrl)).text();
        return sample(body, 'qcr_worker_jobs_processed_total{job="match-events"}') >= 1 ? body : undefined;
      },
      { what: 'the worker to count the processed event' },
    );
    expect(sample(text, 'qcr_event_progress_lag_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'qcr_worker_jobs_failed_total{job="match-events"}')).toBe(0);
    // Default process metrics are on in the real process.
    expect(text).toContain('process_cpu_seconds_total');
    // The durability machinery: both Redis clients up, the backlog and the queue read, the reconciler counted.
    expect(sample(text, 'qcr_redis_up{client="worker"}')).toBe(1);
    expect(sample(text, 'qcr_redis_up{client="producer"}')).toBe(1);
    for (const name of [
      'qcr_pending_events',
      'qcr_pending_events_oldest_age_seconds',
      'qcr_queue_jobs',
      'qcr_reconciler_requeued_total',
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
  });

  it("logs the request id of the call that enqueued an event on the worker's job line", async () => {
    const platform = await stack.createProvider('platform');
    const sent = await stack.call('POST', '/v1/events', {
      headers: { ...platform.headers, 'x-request-id': 'req-trace-0042' },
      body: { user_id: 'traced-user', event_type: 'kyc', timestamp: '2026-01-01T00:00:00Z' },
    });
    expect(sent.status).toBe(200);
    const worker = stack.workers[0]!;
    const line = await eventually(
      async () =>
        worker.lines().find((candidate) => candidate.includes('"msg":"event job done"') && candidate.includes('req-trace-0042')),
      {
        what: 'the job line with the request id',
      },
    );
    expect(JSON.parse(line)).toMatchObject({ requestIds: ['req-trace-0042'], matched: [sent.json.data.event_id] });
  });
});
