import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createDatabase, type Database } from '../../../shared/db/client.js';
import { type HttpApiClient, httpClient } from '../../../shared/testing/api-client.js';
import { nothingPending } from '../../../shared/testing/progress.js';
import { type SeededRandom, seededRandom } from '../../../shared/testing/random.js';
import type { PrivatePostgres } from '../../harness/private-postgres.js';
import type { LocalCluster } from '../../harness/redis-cluster.js';
import type { PrivateRedis } from '../../harness/redis-server.js';
import { type Stack as BaseStack, startStack } from '../../harness/stack.js';
import { LOAD_CLIENT } from './answers.js';
import { checkHistory, type Verdict } from './checker.js';
import { retryUnacknowledged } from './event-load.js';
import { History } from './history.js';
import { seedWorld, type Tenant } from './world.js';

/** What lives for the whole run: the private servers and the folder of every process's output. */
export interface Infra {
  postgres: PrivatePostgres;
  redis: PrivateRedis;
  /** A cluster run's local Redis Cluster (`--cluster`): every stack runs on it instead of `redis`. */
  cluster?: LocalCluster;
  outputDir: string;
}

export interface StackOptions {
  platforms?: number;
  usersPerPlatform?: number;
  /** Plain worker processes (default 2; beside a supervisor, 0). */
  workers?: number;
  /** API processes (default 1), the supervisor's counted when `supervised`. */
  apis?: number;
  /**
   * Run the service under `npm start`'s supervisor (scripts/start.mjs: one
   * API, one worker, restarted when they exit); `api` is then the
   * supervisor, `workers` only the plain workers started beside it.
   */
  supervised?: boolean;
  /** Seed the model chains' tenants (default); false: the scenario seeds a world of its own and sets `tenants`. */
  seedTenants?: boolean;
  /** Extra environment for the API and workers (limits a scenario configures, say). */
  env?: Record<string, string>;
}

/**
 * One scenario's deployment: the e2e stack (e2e/harness/stack.ts) on the
 * private servers, with the seeded tenants, the client and the history of
 * every event sent added.
 */
export interface Stack extends BaseStack {
  infra: Infra;
  databaseName: string;
  /** The load's client of the API (read from `api` on every call; no answer is status 0), beside the stack's checked `call`. */
  client: HttpApiClient;
  tenants: Tenant[];
  history: History;
  random: SeededRandom;
  /** The suite's own connection to the scenario's database (reopen after a Postgres restart with `reconnect`). */
  db(): Database;
  reconnect(): Promise<void>;
  disconnect(): Promise<void>;
  /** Retries what got no 200, waits until nothing is pending, and runs the checker. */
  settle(drainTimeoutMs: number): Promise<{ verdict: Verdict; drainedMs: number | null }>;
  close(): Promise<void>;
}

export async function openStack(infra: Infra, name: string, seed: number, options: StackOptions = {}): Promise<Stack> {
  const outputDir = join(infra.outputDir, name);
  mkdirSync(outputDir, { recursive: true });
  const base = await startStack(`chaos_${name}`, {
    postgresServerUrl: infra.postgres.serverUrl,
    redis: infra.cluster ? { url: infra.cluster.url, cluster: true } : { url: infra.redis.url },
    // The shipped timings and partitions: what the scenarios measure is recovery as deployed.
    fastRecovery: false,
    partitions: 'shipped',
    outputDir,
    queueLabel: 'chaos',
    apiCount: options.apis ?? 1,
    workerCount: options.workers ?? (options.supervised ? 0 : 2),
    ...(options.supervised ? { supervised: true } : {}),
    // On a cluster, the layout docs/operations.md recommends there: matching spread over four hash tags.
    env: { LOG_LEVEL: 'info', ...(infra.cluster ? { MATCHING_PARTITIONS: '4' } : {}), ...options.env },
  });
  const { url } = base.database;
  let connection = createDatabase({ url, poolSize: 4, applicationName: 'qcr-chaos' });
  const stack: Stack = Object.assign(base, {
    infra,
    databaseName: base.database.name,
    client: httpClient(() => stack.api.url, LOAD_CLIENT),
    tenants: [] as Tenant[],
    history: new History(),
    random: seededRandom(seed),
    db: () => connection.db,
    async reconnect() {
      await connection.close().catch(() => {});
      connection = createDatabase({ url, poolSize: 4, applicationName: 'qcr-chaos' });
    },
    disconnect: () => connection.close().catch(() => {}),
    async settle(drainTimeoutMs: number) {
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
      await connection.close().catch(() => {});
      await base.stop().catch(() => {});
    },
  });
  if (options.seedTenants === false) return stack;
  try {
    stack.tenants = await seedWorld(stack.client, {
      platforms: options.platforms ?? 1,
      usersPerPlatform: options.usersPerPlatform ?? 30,
    });
  } catch (error) {
    await stack.close();
    throw error;
  }
  return stack;
}
