import { describe, expect, it } from 'vitest';
import { useTestService } from '../testing/test-service.js';

const { api, platform } = useTestService('metrics');

async function scrape() {
  const answer = await api.call('GET', '/metrics');
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
  it('serves Prometheus text without credentials, with every metric named', async () => {
    const answer = await api.call('GET', '/metrics');
    expect(answer.headers.get('content-type')).toContain('text/plain');
    for (const name of ['qcr_http_requests_total', 'qcr_http_request_duration_seconds', 'qcr_events_total', 'qcr_queue_jobs']) {
      expect(answer.text).toContain(`# TYPE ${name} `);
    }
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
    await api.call('PATCH', '/admin/v1/providers/00000000-0000-4000-8000-000000000000', { headers: api.adminHeaders, body: { status: 'active' } });
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
    await api.call('POST', '/v1/events/batch', { headers: platform.headers, body: { events: [event('b'), event('a'), { user_id: 1 }] } });
    const after = await scrape();
    expect(count(after, 'received') - count(before, 'received')).toBe(2);
    expect(count(after, 'duplicate') - count(before, 'duplicate')).toBe(2);
    expect(count(after, 'rejected') - count(before, 'rejected')).toBe(2);
  });

  it('reports the queue: events wait for a worker that is not running here', async () => {
    await api.call('POST', '/v1/events', { headers: platform.headers, body: event('queued') });
    const text = await scrape();
    expect(sample(text, 'qcr_queue_jobs{state="waiting"}')).toBeGreaterThanOrEqual(1);
    expect(text).toContain('qcr_queue_jobs{state="failed"} 0');
  });
});
