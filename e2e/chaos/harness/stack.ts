import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createDatabase, type Database } from '../../../shared/db/client.js';
import { migrateWithLock } from '../../../shared/db/migrate.js';
import { createDatabaseNamed, dropDatabaseNamed } from '../../../shared/db/server-admin.js';
import { uniqueSuffix } from '../../../shared/testing/database.js';
import type { PrivatePostgres } from '../../harness/private-postgres.js';
import { nothingPending } from '../../../shared/testing/progress.js';
import { seededRandom, type SeededRandom } from '../../../shared/testing/random.js';
import { checkHistory, type Verdict } from './checker.js';
import { retryUnacknowledged } from './event-load.js';
import { History } from './history.js';
import { httpClient, type HttpClient } from './http.js';
import type { PrivateRedis } from '../../harness/redis-server.js';
import { startService, type ServiceProcess } from '../../harness/service.js';
import { CHAOS_ADMIN_TOKEN, seedWorld, type Tenant } from './world.js';

/** What lives for the whole run: the private servers and the folder of every process's output. */
export interface Infra {
  postgres: PrivatePostgres;
  redis: PrivateRedis;
  outputDir: string;
}

export interface StackOptions {
  platforms?: number;
  usersPerPlatform?: number;
  workers?: number;
  /**
   * Run the service under `npm start`'s supervisor (scripts/start.mjs: one
   * API, one worker, restarted when they exit) instead of as separate
   * processes; `api` is then the supervisor, `workers` stays empty.
   */
  supervised?: boolean;
  /** Extra environment for the API and workers (limits a scenario configures, say). */
  env?: Record<string, string>;
}

/**
 * One scenario's deployment: its own database on the private server and its
 * own queue prefix, the built API and workers as processes, the seeded
 * tenants, the client and the history of every event sent.
 */
export interface Stack {
  infra: Infra;
  databaseName: string;
  env: Record<string, string>;
  api: ServiceProcess;
  workers: ServiceProcess[];
  /** Every process the stack started (replaced ones included), for the no-crash check. */
  processes: ServiceProcess[];
  /** Calls the API (read from `api` on every call). */
  client: HttpClient;
  tenants: Tenant[];
  history: History;
  random: SeededRandom;
  /** The suite's own connection to the scenario's database (reopen after a Postgres restart with `reconnect`). */
  db(): Database;
  reconnect(): Promise<void>;
  disconnect(): Promise<void>;
  startWorker(): Promise<ServiceProcess>;
  /** Retries what got no 200, waits until nothing is pending, and runs the checker. */
  settle(drainTimeoutMs: number): Promise<{ verdict: Verdict; drainedMs: number | null }>;
  close(): Promise<void>;
}

export async function openStack(infra: Infra, name: string, seed: number, options: StackOptions = {}): Promise<Stack> {
  const databaseName = `chaos_${name.replace(/\W/g, '_')}_${uniqueSuffix()}`;
  const outputDir = join(infra.outputDir, name);
  mkdirSync(outputDir, { recursive: true });
  await createDatabaseNamed(infra.postgres.serverUrl, databaseName);
  const url = infra.postgres.databaseUrl(databaseName);
  await migrateWithLock(url);
  const env: Record<string, string> = {
    DATABASE_URL: url,
    REDIS_URL: infra.redis.url,
    QUEUE_PREFIX: `chaos-${uniqueSuffix()}`,
    ADMIN_TOKEN: CHAOS_ADMIN_TOKEN,
    LOG_LEVEL: 'info',
    ...options.env,
  };
  let connection = createDatabase({ url, poolSize: 4, applicationName: 'qcr-chaos' });
  const processes: ServiceProcess[] = [];
  let workerCount = 0;
  const startApi = async () => {
    const api = options.supervised ? await startService('supervisor', env, { name: 'npm-start', outputDir }) : await startService('api', env, { name: 'api', outputDir });
    processes.push(api);
    return api;
  };
  const startWorker = async () => {
    workerCount += 1;
    const worker = await startService('worker', env, { name: `worker-${workerCount}`, outputDir });
    processes.push(worker);
    return worker;
  };

  const stack: Stack = {
    infra,
    databaseName,
    env,
    api: undefined as unknown as ServiceProcess,
    workers: [],
    processes,
    client: httpClient(() => stack.api.url),
    tenants: [],
    history: new History(),
    random: seededRandom(seed),
    db: () => connection.db,
    async reconnect() {
      await connection.close().catch(() => {});
      connection = createDatabase({ url, poolSize: 4, applicationName: 'qcr-chaos' });
    },
    disconnect: () => connection.close().catch(() => {}),
    async startWorker() {
      const worker = await startWorker();
      stack.workers.push(worker);
      return worker;
    },
    async settle(drainTimeoutMs) {
      await retryUnacknowledged(stack.client, stack.history, stack.tenants);
      const started = Date.now();
      let drainedMs: number | null = null;
      while (Date.now() - started < drainTimeoutMs) {
        if (await nothingPending(connection.db).catch(() => undefined)) {
          drainedMs = Date.now() - started;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      return { verdict: await checkHistory(connection.db, stack.history, stack.tenants), drainedMs };
    },
    async close() {
      stack.client.close();
      await Promise.all(processes.map((process) => process.stop()));
      await connection.close().catch(() => {});
      await dropDatabaseNamed(infra.postgres.serverUrl, databaseName).catch(() => {});
    },
  };
  try {
    stack.api = await startApi();
    if (!options.supervised) stack.workers.push(...(await Promise.all(Array.from({ length: options.workers ?? 2 }, () => startWorker()))));
    stack.tenants = await seedWorld(stack.client, { platforms: options.platforms ?? 1, usersPerPlatform: options.usersPerPlatform ?? 30 });
  } catch (error) {
    await stack.close();
    throw error;
  }
  return stack;
}
