import { OpenAPIHono } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/observability/logger.js';
import type { AppEnv } from '../app-env.js';
import { createErrorHandler } from './errors.js';
import { requestTimeout } from './request-timeout.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The middleware and error handler as createApp installs them, in front of routes that take their time. */
function appWithLimit(limitMs: number) {
  const app = new OpenAPIHono<AppEnv>();
  app.onError(createErrorHandler(createLogger({ level: 'silent', name: 'timeout-test' })));
  app.use('*', requestTimeout(limitMs, ['/v1/live']));
  app.get('/slow', async (c) => (await sleep(1000), c.json({ ok: true })));
  app.get('/quick', (c) => c.json({ ok: true }));
  app.get('/v1/live', async (c) => (await sleep(400), c.text('stream')));
  // What a statement stopped by statement_timeout throws (postgres.js error with its SQLSTATE).
  app.get('/statement-timeout', () => {
    throw Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
  });
  return app;
}

describe('request time limit', () => {
  it('answers 503 unavailable in the envelope when a request takes longer than the limit', async () => {
    const response = await appWithLimit(100).request('/slow');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ success: false, error: expect.any(String), code: 'unavailable' });
  });

  it('leaves requests within the limit, and the live stream, alone', async () => {
    const app = appWithLimit(100);
    expect((await app.request('/quick')).status).toBe(200);
    const live = await app.request('/v1/live');
    expect(live.status).toBe(200);
    expect(await live.text()).toBe('stream');
  });

  it('answers a statement stopped by a session time limit with 503, not 500', async () => {
    const response = await appWithLimit(1000).request('/statement-timeout');
    expect(response.status).toBe(503);
    expect(((await response.json()) as { code: string }).code).toBe('unavailable');
  });

  it('answers each of many open requests on time, by its own start, and leaves the quick ones alone', async () => {
    const app = appWithLimit(100);
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, n) => {
        if (n % 2 === 0) await sleep(n * 2); // staggered starts: the sweep must expire each by its own start
        const started = performance.now();
        const response = await app.request(n % 2 === 0 ? '/slow' : '/quick');
        return { n, status: response.status, tookMs: performance.now() - started };
      }),
    );
    for (const { n, status, tookMs } of answers) {
      expect(status, `request ${n}`).toBe(n % 2 === 0 ? 503 : 200);
      // Between the limit and the limit plus one sweep (10 ms here); the upper bound leaves room for a loaded machine.
      if (n % 2 === 0) expect(tookMs, `request ${n}`).toBeGreaterThanOrEqual(99);
      if (n % 2 === 0) expect(tookMs, `request ${n}`).toBeLessThan(500);
    }
  });
});
