import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN } from '../../../shared/testing/admin-token.js';
import { createTestChain, type TestChain } from '../../../shared/testing/chains.js';
import { createTestApp, type TestApp } from '../../testing/test-app.js';
import { useTestService } from '../../testing/test-service.js';

const { database, api, platform, advertiser } = useTestService('campaign_page');
let withoutToken: TestApp;
let chain: TestChain;

const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`operator:${password}`).toString('base64')}` });

beforeAll(async () => {
  withoutToken = await createTestApp(database, { ADMIN_TOKEN: '' });
  chain = await createTestChain(database.db, platform.id, advertiser.id, { budget: 500 });
});
afterAll(async () => {
  await withoutToken.close();
});

describe('/admin/campaigns/{id}', () => {
  it('asks a browser for the admin token (Basic) and refuses a wrong one', async () => {
    const answer = await api.call('GET', `/admin/campaigns/${chain.id}`);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    expect(
      (await api.call('GET', `/admin/campaigns/${chain.id}/stats`, { headers: basic('wrong-token-0123456789') })).status,
    ).toBe(401);
  });

  it('serves the page, the charting library it loads and the stats it polls', async () => {
    const page = await api.call('GET', `/admin/campaigns/${chain.id}`, { headers: basic(TEST_ADMIN_TOKEN) });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('<script src="assets/chart.umd.min.js">');
    const script = await api.call('GET', '/admin/campaigns/assets/chart.umd.min.js', { headers: basic(TEST_ADMIN_TOKEN) });
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toContain('javascript');
    expect(script.text).toContain('Chart.js v4');
    const stats = await api.call('GET', `/admin/campaigns/${chain.id}/stats`, { headers: basic(TEST_ADMIN_TOKEN) });
    const admin = await api.call('GET', `/admin/v1/quest-chains/${chain.id}/stats`, { headers: api.adminHeaders });
    expect(stats.status).toBe(200);
    expect(stats.json.data).toEqual(admin.json.data);
    expect(stats.json.data.budget).toEqual({ budget: 500, spent: 0, left: 500 });
  });

  it('answers 404 for an unknown chain or a malformed id, and does not exist without ADMIN_TOKEN', async () => {
    expect((await api.call('GET', `/admin/campaigns/${platform.id}`, { headers: basic(TEST_ADMIN_TOKEN) })).status).toBe(404);
    expect((await api.call('GET', '/admin/campaigns/not-a-chain/stats', { headers: basic(TEST_ADMIN_TOKEN) })).status).toBe(404);
    expect((await withoutToken.call('GET', `/admin/campaigns/${chain.id}`, { headers: basic(TEST_ADMIN_TOKEN) })).status).toBe(
      404,
    );
  });
});
