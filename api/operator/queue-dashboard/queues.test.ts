import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN } from '../../../shared/testing/admin-token.js';
import { createTestApp, type TestApp } from '../../testing/test-app.js';
import { useTestService } from '../../testing/test-service.js';

const { database, api } = useTestService('queues', { providers: false });
let withoutToken: TestApp;

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

beforeAll(async () => {
  withoutToken = await createTestApp(database, { ADMIN_TOKEN: '' });
});
afterAll(async () => {
  await withoutToken.close();
});

describe('GET /admin/queues', () => {
  it('asks for Basic credentials without a token', async () => {
    const answer = await api.call('GET', '/admin/queues');
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    expect(answer.json).toMatchObject({ success: false, code: 'missing_credentials' });
  });

  it('refuses a wrong token, as Basic password or as bearer', async () => {
    expect(
      (await api.call('GET', '/admin/queues', { headers: { authorization: basic('admin', 'wrong-token-0123456789') } })).status,
    ).toBe(401);
    expect((await api.call('GET', '/admin/queues', { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(
      401,
    );
    // The token as user name (password empty) is not the token as password.
    expect((await api.call('GET', '/admin/queues', { headers: { authorization: basic(TEST_ADMIN_TOKEN, '') } })).status).toBe(
      401,
    );
  });

  it('serves the dashboard with the token as Basic password (any user name) or as bearer', async () => {
    const page = await api.call('GET', '/admin/queues', { headers: { authorization: basic('anyone', TEST_ADMIN_TOKEN) } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('Quest-chain queues');
    const viaBearer = await api.call('GET', '/admin/queues', { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(viaBearer.status).toBe(200);
  });

  it("guards the dashboard's API and lists the matching queue", async () => {
    expect((await api.call('GET', '/admin/queues/api/queues')).status).toBe(401);
    const queues = await api.call('GET', '/admin/queues/api/queues', {
      headers: { authorization: basic('ops', TEST_ADMIN_TOKEN) },
    });
    expect(queues.status).toBe(200);
    expect(queues.json.queues.map((queue: { name: string }) => queue.name)).toContain('matching');
  });

  it('does not exist when ADMIN_TOKEN is unset', async () => {
    const answer = await withoutToken.call('GET', '/admin/queues', { headers: { authorization: basic('x', TEST_ADMIN_TOKEN) } });
    expect(answer.status).toBe(404);
    expect(answer.json).toMatchObject({ success: false, code: 'not_found' });
    expect((await withoutToken.call('GET', '/admin/queues/api/queues')).status).toBe(404);
  });
});
