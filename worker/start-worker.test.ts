import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../shared/config.js';
import { workerLeases } from '../shared/db/schema/index.js';
import { createLogger } from '../shared/observability/logger.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { useTestData } from '../shared/testing/test-data.js';
import { type RunningWorker, startWorker } from './start-worker.js';

// The worker process in process, as worker/main.ts runs it: startWorker is a
// function, so a test can start and stop it.

const { database } = useTestData('start_worker', { providers: false });
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

  it('with WORKER_ROLES=webhooks alone, is ready without consuming a matching shard', async () => {
    running = await startWorker(configOf({ WORKER_ROLES: 'webhooks' }), silent);
    expect((await fetch(`http://127.0.0.1:${running.healthPort}/readyz`)).status).toBe(200);
  });
});
