import { describe, expect, it } from 'vitest';
import { useTestData } from '../../../shared/testing/test-data.js';
import { createTestApp } from '../../testing/test-app.js';

// The SSRF guard at creation against the development flags (§10): WEBHOOK_ALLOW_HTTP alone lets
// http:// through but still refuses loopback and private hosts; WEBHOOK_ALLOW_PRIVATE lifts that.

const { database, platform } = useTestData('webhook_dev_flags');
const targets = [
  'http://127.0.0.1:8080/hooks',
  'http://10.0.0.1/hooks',
  'http://[::1]:8080/hooks',
  'http://localhost:8080/hooks',
];

describe('SSRF guard and the development flags', () => {
  it.each(targets)('refuses %s with only WEBHOOK_ALLOW_HTTP', async (url) => {
    const app = await createTestApp(database, { WEBHOOK_ALLOW_HTTP: 'true' });
    const answer = await app.call('POST', '/v1/webhook-endpoints', { headers: platform.headers, body: { url } });
    await app.close();
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ code: 'webhook_url_refused', param: 'url' });
  });

  it.each(targets)('accepts %s with WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE', async (url) => {
    const app = await createTestApp(database, { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
    const answer = await app.call('POST', '/v1/webhook-endpoints', { headers: platform.headers, body: { url } });
    await app.close();
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data.url).toBe(url);
  });
});
