import { describe, expect, it } from 'vitest';
import { useTestService } from './testing/test-service.js';

// Hono's SmartRouter settles on the first router that can hold every route.
// RegExpRouter is the fast one; a route it cannot hold (a static segment and a
// parameter at one depth, each with more after it) silently moves EVERY request
// to the TrieRouter. api/routes/mount-plan.ts puts such routes behind a
// wildcard, and the operator surfaces of api/app.ts have apps of their own;
// this keeps the next one from slipping in.

const { api } = useTestService('app_router');

describe('the app router', () => {
  it('stays on RegExpRouter with every route registered', async () => {
    expect((await api.call('GET', '/healthz')).status).toBe(200);
    expect(api.app.router.name).toBe('SmartRouter + RegExpRouter');
  });

  it('still serves the read beside the explain wildcard, and 404s other paths under it', async () => {
    expect((await api.call('GET', '/v1/quest-chains/active/someone')).status).toBe(401);
    const stray = await api.call('GET', '/v1/quest-chains/nothing/here');
    expect(stray.status).toBe(404);
    expect(stray.json).toMatchObject({ success: false, code: 'not_found' });
  });
});
