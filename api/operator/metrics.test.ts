import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { createApp } from '../app.js';
import { useTestService } from '../testing/test-service.js';
import { startMetricsServer } from './metrics.js';

const { api, platform } = useTestService('metrics');

async function scrape() {
  const answer = await api.call('GET', '/metrics', { headers: api.adminHeaders });
  expect(answer.status).toBe(200);
  return answer.text;
}

/** The value of one sample line, e.g. sample(text, 'qcr_events_total{outcome="received"}'); 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const event = (type: string) => ({ user_id: 'metrics-user', event_type: type, timestamp: '2026-02-03T04:05:06.000Z' });

describe('GET /metrics', () => {
  it('serves Prometheus text to the admin token, with every metric named', async () => {
    const answer = await api.call('GET', '/metrics', { headers: api.adminHeaders });
    expect(answer.headers.get('content-type')).toContain('text/plain');
    for (const name of [
      'qcr_http_requests_total',
      'qcr_http_request_duration_seconds',
      'qcr_events_total',
      'qcr_queue_jobs',
      'qcr_live_streams',
      'qcr_redis_up',
    ]) {
      expect(answer.text).toContain(`# TYPE ${name} `);
    }
  });

  it('refuses a scrape without the admin token, and does not exist without ADMIN_TOKEN', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789' }] as Record<string, string>[]) {
      const refused = await api.call('GET', '/metrics', { headers });
      expect(refused.status).toBe(401);
      expect(refused.text).not.toContain('qcr_');
    }
    const noAdmin = createApp({ ...api.deps, config: { ...api.deps.config, ADMIN_TOKEN: undefined } });
    expect((await noAdmin.request('/metrics')).status).toBe(404);
  });

  it('with METRICS_PORT: nothing on the public port, the internal listener answers without credentials', async () => {
    const internal = createApp({ ...api.deps, config: { ...api.deps.config, METRICS_PORT: 0 } });
    expect((await internal.request('/metrics', { headers: api.adminHeaders })).status).toBe(404);
    const server = await startMetricsServer(api.deps.metrics, { port: 0, host: '127.0.0.1' });
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const answer = await fetch(`${base}/metrics`);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('# TYPE qcr_events_total counter');
      expect((await fetch(`${base}/v1/events`)).status).toBe(404);
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });

  it('reports each Redis client of the process as up', async () => {
    await vi.waitFor(async () => {
      const text = await scrape();
      expect(sample(text, 'qcr_redis_up{client="producer"}')).toBe(1);
      expect(sample(text, 'qcr_redis_up{client="subscriber"}')).toBe(1);
    });
  });

  it('counts open live streams', async () => {
    const before = sample(await scrape(), 'qcr_live_streams');
    const token = api.deps.liveTokens.issue({ platformId: platform.id, platformUserId: 'metrics-live', livemode: true });
    const response = await api.app.request(`/v1/live?token=${token}`);
    const reader = response.body!.getReader();
    await reader.read(); // `ready`
    await vi.waitFor(async () => expect(sample(await scrape(), 'qcr_live_streams')).toBe(before + 1));
    await reader.cancel();
    await vi.waitFor(async () => expect(sample(await scrape(), 'qcr_live_streams')).toBe(before));
  });

  it('counts a request by route template and status, with its latency', async () => {
    const series = 'qcr_http_requests_total{method="GET",route="/healthz",status="200"}';
    const before = sample(await scrape(), series);
    await api.call('GET', '/healthz');
    const after = await scrape();
    expect(sample(after, series)).toBe(before + 1);
    expect(sample(after, 'qcr_http_request_duration_seconds_count{method="GET",route="/healthz",status="200"}')).toBe(before + 1);
  });

  it('labels parameterised routes by template, not by raw path', async () => {
    await api.call('PATCH', '/admin/v1/providers/00000000-0000-4000-8000-000000000000', {
      headers: api.adminHeaders,
      body: { status: 'active' },
    });
    const text = await scrape();
    expect(sample(text, 'qcr_http_requests_total{method="PATCH",route="/admin/v1/providers/:id",status="404"}')).toBe(1);
    expect(text).not.toContain('00000000-0000-4000-8000-000000000000');
    // Unknown paths share one series, so scanners cannot blow up the label set.
    await api.call('GET', '/wp-admin/setup-config.php');
    const after = await scrape();
    expect(sample(after, 'qcr_http_requests_total{method="GET",route="/*",status="404"}')).toBeGreaterThanOrEqual(1);
    expect(after).not.toContain('wp-admin');
  });

  it('counts events received, duplicate and rejected', async () => {
    const before = await scrape();
    const count = (text: string, outcome: string) => sample(text, `qcr_events_total{outcome="${outcome}"}`);
    await api.call('POST', '/v1/events', { headers: platform.headers, body: event('a') });
    await api.call('POST', '/v1/events', { headers: platform.headers, body: event('a') });
    await api.call('POST', '/v1/events', { headers: platform.headers, body: { ...event('a'), amount: -1 } });
    await api.call('POST', '/v1/events/batch', {
      headers: platform.headers,
      body: { events: [event('b'), event('a'), { user_id: 1 }] },
    });
    const after = await scrape();
    expect(count(after, 'received') - count(before, 'received')).toBe(2);
    expect(count(after, 'duplicate') - count(before, 'duplicate')).toBe(2);
    expect(count(after, 'rejected') - count(before, 'rejected')).toBe(2);
  });

  it('reports the queue: events wait for a worker that is not running here', async () => {
    await api.call('POST', '/v1/events', { headers: platform.headers, body: event('queued') });
    // The queue is read at most once a second: a reading from before the event may answer first.
    await vi.waitFor(async () => expect(sample(await scrape(), 'qcr_queue_jobs{state="waiting"}')).toBeGreaterThanOrEqual(1), {
      timeout: 5000,
    });
    expect(await scrape()).toContain('qcr_queue_jobs{state="failed"} 0');
  });
});
