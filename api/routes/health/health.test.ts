import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../../shared/db/client.js';
import { events, pendingEvents } from '../../../shared/db/schema/index.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import type { TestDatabase } from '../../../shared/testing/database.js';
import { eventually } from '../../../shared/testing/eventually.js';
import { createTestApp, type TestApp } from '../../testing/test-app.js';
import { useTestService } from '../../testing/test-service.js';

// §9: /healthz and /readyz need no credentials; readiness follows Postgres
// and Redis. §3: with Redis gone, an event is still stored and answered 200.

const DEAD_REDIS = 'redis://127.0.0.1:1';

const { database, api, platform } = useTestService('health');
let noRedis: TestApp;

beforeAll(async () => {
  noRedis = await createTestApp(database, { REDIS_URL: DEAD_REDIS });
});
afterAll(async () => {
  await noRedis.close();
});

describe('health', () => {
  it('/healthz answers 200 without credentials', async () => {
    const answer = await api.call('GET', '/healthz');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ success: true, data: { status: 'ok' } });
  });

  it('/readyz answers 200 when Postgres and Redis answer', async () => {
    // The app's Redis connection is new: a probe while it still connects may use up its 1 s (seen on a loaded first run).
    await eventually(async () => (api.deps.redis.status === 'ready' ? true : undefined), { what: 'redis ready' });
    const answer = await api.call('GET', '/readyz');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ success: true, data: { status: 'ready' } });
  });

  it('/readyz answers 503 naming Redis when Redis is unreachable; /healthz stays 200', async () => {
    const answer = await noRedis.call('GET', '/readyz');
    expect(answer.status).toBe(503);
    expect(answer.json).toMatchObject({ success: false, code: 'unavailable' });
    expect(answer.json.error).toContain('redis');
    expect(answer.json.error).not.toContain('postgres');
    expect((await noRedis.call('GET', '/healthz')).status).toBe(200);
  });

  it('/readyz answers 503 naming Postgres when Postgres is unreachable', async () => {
    const gone = createDatabase({ url: 'postgres://postgres@127.0.0.1:1/nowhere', poolSize: 1 });
    const fake = { ...database, ...gone, url: 'postgres://postgres@127.0.0.1:1/nowhere' } as TestDatabase;
    const noPostgres = await createTestApp(fake, { LIVE_TOKEN_SECRET: 'x'.repeat(32) });
    try {
      // Its Redis connection is brand new: let it finish connecting so only Postgres is missing.
      await eventually(async () => (noPostgres.deps.redis.status === 'ready' ? true : undefined), { what: 'redis ready' });
      const answer = await noPostgres.call('GET', '/readyz');
      expect(answer.status).toBe(503);
      expect(answer.json.error).toContain('postgres');
      expect(answer.json.error).not.toContain('redis');
    } finally {
      await noPostgres.close();
      await gone.close();
    }
  });
});

describe('ingest while Redis is unreachable', () => {
  it('stores and answers a single event, a batch and a registration with 200', async () => {
    const started = Date.now();
    const single = await noRedis.call('POST', '/v1/events', {
      headers: platform.headers,
      body: { user_id: 'offline', event_type: 'deposit', timestamp: '2026-03-01T10:00:00Z' },
    });
    expect(single.status, single.text).toBe(200);
    expect(single.json.data.status).toBe('received');

    const batch = await noRedis.call('POST', '/v1/events/batch', {
      headers: platform.headers,
      body: { events: [{ user_id: 'offline', event_type: 'deposit', timestamp: '2026-03-01T10:00:01Z' }] },
    });
    expect(batch.status).toBe(200);
    expect(batch.json.data.results[0].status).toBe('received');

    const register = await noRedis.call('POST', '/v1/users/register', {
      headers: platform.headers,
      body: { platform_user_id: 'offline' },
    });
    expect(register.status).toBe(200);
    // The enqueue gives up quickly rather than holding the request (not a speed target: a hang guard).
    expect(Date.now() - started).toBeLessThan(10_000);

    const rows = (
      await database.db
        .select({ pendingId: pendingEvents.eventId })
        .from(events)
        .leftJoin(pendingEvents, eq(pendingEvents.eventId, events.id))
        .where(eq(events.userId, senderUserId('offline')))
    ).map((row) => ({ pending: row.pendingId !== null }));
    expect(rows).toHaveLength(2);
    expect(rows.every((row) => row.pending)).toBe(true);
    // The stored events are found again as duplicates (and re-enqueue is attempted) once more.
    const again = await noRedis.call('POST', '/v1/events', {
      headers: platform.headers,
      body: { user_id: 'offline', event_type: 'deposit', timestamp: '2026-03-01T10:00:00.000Z' },
    });
    expect(again.json.data).toMatchObject({ status: 'duplicate', event_id: single.json.data.event_id });
  });
});
