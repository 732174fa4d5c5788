import { eq, inArray } from 'drizzle-orm';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../shared/config.js';
import { events, pendingEvents, workerLeases } from '../shared/db/schema/index.js';
import { autovacuumIsOn } from '../shared/db/server-admin.js';
import { senderUserId } from '../shared/domain/ids.js';
import { dateToMicros } from '../shared/domain/timestamp.js';
import { createLogger } from '../shared/observability/logger.js';
import { createRedis } from '../shared/queue/connection.js';
import { createMatchingProducer } from '../shared/queue/producer.js';
import { capturingLogger } from '../shared/testing/captured-log.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { eventually } from '../shared/testing/eventually.js';
import { useTestData } from '../shared/testing/test-data.js';
import { AUTOVACUUM_OFF, type RunningWorker, startWorker } from './start-worker.js';

// The worker process in process, as worker/main.ts runs it: startWorker is a
// function, so a test can start and stop it.

const { database, platform } = useTestData('start_worker');
const redis = createRedis('redis://127.0.0.1:6379', 'producer');
afterAll(() => redis.disconnect());
const silent = createLogger({ level: 'silent', name: 'start-worker-test' });
const configOf = (env: Record<string, string> = {}) =>
  parseConfig({
    DATABASE_URL: database.url,
    QUEUE_PREFIX: `start-worker-${uniqueSuffix()}`,
    HOST: '127.0.0.1',
    WORKER_HEALTH_PORT: '0',
    LOG_LEVEL: 'silent',
    ...env,
  });

let running: RunningWorker | undefined;
afterEach(async () => {
  await running?.stop('test');
  running = undefined;
});

describe('startWorker', () => {
  it('takes its lease, answers ready on its health port, and on stop releases the lease and stops answering', async () => {
    running = await startWorker(configOf(), silent);
    const health = `http://127.0.0.1:${running.healthPort}`;
    expect((await fetch(`${health}/readyz`)).status).toBe(200);
    expect(await fetch(`${health}/metrics`).then((answer) => answer.text())).toContain('qcr_');
    const leases = await database.db.select().from(workerLeases).where(eq(workerLeases.workerId, running.workerId));
    expect(leases).toHaveLength(1);

    const { workerId } = running;
    await running.stop('test');
    running = undefined;
    expect(await database.db.select().from(workerLeases).where(eq(workerLeases.workerId, workerId))).toHaveLength(0);
    await expect(fetch(`${health}/healthz`)).rejects.toThrow();
  });

  it('with WORKER_ROLES=webhooks alone, is ready without consuming a matching partition', async () => {
    running = await startWorker(configOf({ WORKER_ROLES: 'webhooks' }), silent);
    expect((await fetch(`http://127.0.0.1:${running.healthPort}/readyz`)).status).toBe(200);
  });

  it('drains the single matching queue of versions before partitions: jobs an upgrade left there are matched', async () => {
    const prefix = `start-worker-legacy-${uniqueSuffix()}`;
    const nowUs = dateToMicros(new Date());
    const stored = await database.db
      .insert(events)
      .values(
        ['u1', 'u2', 'u3'].map((user) => ({
          providerId: platform.id,
          userId: senderUserId(user),
          eventType: 'kyc',
          occurredAt: nowUs,
          receivedAt: nowUs,
        })),
      )
      .returning({
        eventId: events.id,
        providerId: events.providerId,
        occurredAt: events.occurredAt,
        receivedAt: events.receivedAt,
      });
    await database.db.insert(pendingEvents).values(stored);
    const eventIds = stored.map((event) => event.eventId);
    // As the previous version enqueued them: one queue under the bare prefix.
    const legacy = createMatchingProducer(redis, prefix);
    await legacy.queue.add('match-events', { eventIds, providerId: platform.id });
    // The reconciler would put them back after an hour only: what matches them here is the legacy queue's consumer.
    running = await startWorker(configOf({ QUEUE_PREFIX: prefix, RECONCILE_MIN_AGE_MS: '3600000' }), silent);
    await eventually(
      async () =>
        (await database.db.select().from(pendingEvents).where(inArray(pendingEvents.eventId, eventIds))).length === 0 ||
        undefined,
      { timeoutMs: 15_000, what: 'the legacy queue drained' },
    );
    expect(await legacy.queue.getJobCounts('waiting', 'prioritized', 'active')).toEqual({
      waiting: 0,
      prioritized: 0,
      active: 0,
    });
    await legacy.queue.obliterate({ force: true });
    await legacy.close();
  });

  it('warns once at start when the server runs without autovacuum, and only then', async () => {
    const { logger, lines } = capturingLogger<{ msg: string }>({ level: 'warn', name: 'start-worker-test' });
    const serverRunsIt = await autovacuumIsOn(database.db);
    running = await startWorker(configOf(), logger);
    expect((await fetch(`http://127.0.0.1:${running.healthPort}/readyz`)).status).toBe(200);
    const warned = () => lines.filter((line) => line.msg === AUTOVACUUM_OFF).length;
    if (serverRunsIt) expect(warned()).toBe(0);
    else await eventually(async () => (warned() === 1 ? true : undefined), { what: 'the autovacuum warning', timeoutMs: 5000 });
  });
});
