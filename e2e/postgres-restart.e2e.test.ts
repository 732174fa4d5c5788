import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../shared/db/client.js';
import { migrateWithLock } from '../shared/db/migrate.js';
import { createDatabaseNamed } from '../shared/db/server-admin.js';
import { createTestChain } from '../shared/testing/chains.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { eventually } from '../shared/testing/eventually.js';
import { createTestProvider, type TestProvider } from '../shared/testing/fixtures.js';
import { nothingPending } from '../shared/testing/progress.js';
import { serviceEnv } from '../shared/testing/service-env.js';
import { type PrivatePostgres, startPrivatePostgres } from './harness/private-postgres.js';
import { clientOf, type ServiceProcess, startService } from './harness/service.js';

// A Postgres restart is a non-event (docs/reliability.md). The built API and worker run as
// processes against a private Postgres, which is stopped (fast, then
// immediate) and started again under them: neither process exits, the API
// answers 503 `unavailable` in the envelope while it is away and 200 once it
// is back, and the worker matches the events sent after the return without
// being restarted. (How fast is the chaos suite's figure, not asserted here.)

let server: PrivatePostgres;
let database: ReturnType<typeof createDatabase>;
let api: ServiceProcess;
let worker: ServiceProcess;
let platform: TestProvider;
let sent = 0;

const stamp = () => new Date(Date.now() - 60_000 + (sent += 1)).toISOString();
const sendEvent = (userId: string) =>
  clientOf(api).call('POST', '/v1/events', {
    headers: platform.headers,
    body: { user_id: userId, event_type: 'registration', timestamp: stamp() },
  });

/** Sends events back to back (any answer) until stopped; counts the acknowledged ones. */
function sendUntilStopped() {
  let running = true;
  let acknowledged = 0;
  const loop = (async () => {
    while (running) {
      const answer = await sendEvent('restart-a').catch(() => undefined);
      if (answer?.status === 200) acknowledged += 1;
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    acknowledged: () => acknowledged,
    async stop() {
      running = false;
      await loop;
    },
  };
}

function expectAlive(...processes: ServiceProcess[]) {
  for (const process of processes) {
    expect(process.exit, process.lines().join('\n')).toBeUndefined();
    // The postgres.js defect showed as this, thrown out of a timer.
    expect(process.lines().join('\n')).not.toContain('TypeError');
  }
}

beforeAll(async () => {
  server = await startPrivatePostgres();
  const name = `qcr_pg_restart_${uniqueSuffix()}`;
  await createDatabaseNamed(server.serverUrl, name);
  await migrateWithLock(server.databaseUrl(name));
  database = createDatabase({ url: server.databaseUrl(name), poolSize: 2 });
  platform = await createTestProvider(database.db, 'platform');
  const advertiser = await createTestProvider(database.db, 'advertiser');
  await createTestChain(database.db, platform.id, advertiser.id);
  const env = serviceEnv({
    databaseUrl: server.databaseUrl(name),
    queuePrefix: `pg-restart-${uniqueSuffix()}`,
    env: { RECONCILE_INTERVAL_MS: '300', RECONCILE_MIN_AGE_MS: '300' },
  });
  api = await startService('api', env);
  worker = await startService('worker', env);
  for (const user of ['restart-a', 'restart-b']) {
    const answer = await clientOf(api).call('POST', '/v1/users/register', {
      headers: platform.headers,
      body: { platform_user_id: user },
    });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  }
});

afterAll(async () => {
  await Promise.all([api, worker].map((process) => process?.stop('SIGKILL')));
  await database?.close();
  await server?.destroy();
});

describe('a Postgres restart under the running API and worker', () => {
  for (const mode of ['fast', 'immediate'] as const) {
    it(`pg_ctl stop -m ${mode}: 503 unavailable while it is away, 200 and matching again once it is back, no restart`, async () => {
      expect((await sendEvent('restart-a')).status).toBe(200);
      await eventually(() => nothingPending(database.db), { timeoutMs: 30_000, what: 'the first event matched' });

      // Events keep coming across the restart, so the worker is mid-transaction when the server goes.
      const load = sendUntilStopped();
      await eventually(async () => (load.acknowledged() >= 20 ? true : undefined), { what: 'events in flight' });
      await server.stop(mode);
      const away = await sendEvent('restart-a');
      expect(away.status, JSON.stringify(away.json)).toBe(503);
      expect(away.json).toMatchObject({ success: false, code: 'unavailable' });
      expect((await clientOf(api).call('GET', '/readyz')).status).toBe(503);
      // A while away: the pools keep failing to reconnect; neither process may give up.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expectAlive(api, worker);

      await server.start();
      const returned = Date.now();
      await eventually(async () => ((await sendEvent('restart-b')).status === 200 ? true : undefined), {
        timeoutMs: 30_000,
        what: 'ingest back to 200',
      });
      await load.stop();
      process.stderr.write(
        `postgres restart (${mode}): ingest answered 200 again ${Date.now() - returned} ms after the server was back\n`,
      );
      await eventually(() => nothingPending(database.db).catch(() => undefined), {
        timeoutMs: 30_000,
        what: 'the worker matching again',
      });
      expectAlive(api, worker);
    });
  }
});
