import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../shared/testing/stack.js';
import { createWorkerMetrics } from '../shared/observability/metrics.js';
import { eventually } from '../shared/testing/eventually.js';
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
    const started = worker.output.map((line) => /"healthPort":(\d+).*"msg":"worker started"/.exec(line)).find(Boolean);
    expect(started).toBeTruthy();
    const metricsUrl = `http://127.0.0.1:${started![1]}/metrics`;

    const platform = await stack.createProvider('platform');
    const sent = await stack.http('POST', '/v1/events', {
      headers: platform.headers,
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
  });
});
