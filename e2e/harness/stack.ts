import { join } from 'node:path';
import { type ApiClient, httpClient } from '../../shared/testing/api-client.js';
import { createTestDatabase, type TestDatabase, uniqueSuffix } from '../../shared/testing/database.js';
import { serviceEnv } from '../../shared/testing/service-env.js';
import { seedProvider } from '../../shared/testing/world-seeder.js';
import { type ServiceKind, type ServiceProcess, startService } from './service.js';

/** What a stack is made of; every part has the e2e tests' default. */
export interface StackOptions {
  /** API processes (default 1), the supervisor counted as one when `supervised`; `call` alternates between them. */
  apiCount?: number;
  /**
   * Processes behind each API's port (default 1): more starts the API launcher (api/cluster-main.ts) with
   * API_PROCESSES, as `npm start` does; `apis` then holds the launchers.
   */
  apiProcesses?: number;
  /** Worker processes started with the stack (default 1; beside a supervisor, default 0: it runs its own). */
  workerCount?: number;
  /**
   * `npm start`'s supervisor (scripts/start.mjs: one API and one worker of its
   * own) as the first API: `api` is then the supervisor, and `workers` holds
   * only the plain workers started beside it.
   */
  supervised?: boolean;
  /** Another Redis than the shared local one: a private server, or a cluster (REDIS_CLUSTER=true). */
  redis?: { url: string; cluster?: boolean };
  /** A private Postgres server's maintenance URL; default the shared test server. */
  postgresServerUrl?: string;
  /** Recovery in seconds for crash tests (shared/testing/service-env.ts); default on. */
  fastRecovery?: boolean;
  /** `shipped`: MATCHING_PARTITIONS as deployed; by default the tests' few (shared/testing/service-env.ts). */
  partitions?: 'test' | 'shipped';
  /**
   * Another checkout of the service, built (its dist/ and drizzle/): its processes and migrations run instead of this
   * one's, so a benchmark compares two builds under the same load and measurement (BENCH_SERVICE_ROOT).
   */
  serviceRoot?: string;
  /** Node flags before each entry (--cpu-prof, say). */
  nodeArgs?: { api?: string[]; worker?: string[] };
  /** Where the processes' log files go (default a fresh temporary folder each). */
  outputDir?: string;
  /** Put before the processes' names (log files): `world-` gives world-api, world-worker-1. */
  namePrefix?: string;
  /** Runs on the fresh, migrated database before any process starts (settings its sessions must have from the first). */
  prepareDatabase?: (database: TestDatabase) => Promise<void>;
  /** What the queue prefix starts with, before a unique suffix (default `e2e`). */
  queueLabel?: string;
  /** Extra environment of every process, last (limits a test configures, MATCHING_QUEUE_SHARDS, …). */
  env?: Record<string, string>;
}

/**
 * A stack is an ApiClient (shared/testing/api-client.ts): `call` asks its
 * APIs in turn, and checks every answer against the documents that API
 * serves. A client of its own for one process: `httpClient(process.url)`.
 */
export interface Stack extends ApiClient {
  database: TestDatabase;
  /** The environment every process of the stack was started with. */
  env: Record<string, string>;
  queuePrefix: string;
  /** The first API (or the supervisor). */
  api: ServiceProcess;
  apis: ServiceProcess[];
  workers: ServiceProcess[];
  /** Every process the stack started (stopped and replaced ones included). */
  processes: ServiceProcess[];
  /** Another worker, with `env` added to the stack's (WORKER_ROLES, say). */
  startWorker(env?: Record<string, string>): Promise<ServiceProcess>;
  /**
   * Stops every API and worker (SIGTERM, waited for) and starts one API (`apiProcesses` behind its port) and
   * `workerCount` workers on the same database and queues: one world measured under several deployments.
   */
  redeploy(counts: { apiProcesses?: number; workerCount: number }): Promise<void>;
  createProvider(type: 'platform' | 'advertiser'): Promise<{ id: string; headers: Record<string, string> }>;
  /** Stops every process (SIGTERM) and drops the database unless `keepDatabase`. */
  stop(options?: { keepDatabase?: boolean }): Promise<void>;
}

/**
 * A real deployment in miniature, the one builder of e2e tests, the chaos
 * suite, the benchmark and the Redis Cluster test: its own database and queue
 * prefix, the built APIs and workers as processes. Callers add their extras
 * (a seeded world, meters, readiness checks) around it, never a copy of it.
 */
export async function startStack(label: string, options: StackOptions = {}): Promise<Stack> {
  const database = await createTestDatabase(label, {
    ...(options.postgresServerUrl ? { serverUrl: options.postgresServerUrl } : {}),
    ...(options.serviceRoot ? { migrationsFolder: join(options.serviceRoot, 'drizzle') } : {}),
  });
  const queuePrefix = `${options.queueLabel ?? 'e2e'}-${uniqueSuffix()}`;
  const env = serviceEnv({
    databaseUrl: database.url,
    queuePrefix,
    ...(options.redis ? { redis: options.redis } : {}),
    fastRecovery: options.fastRecovery ?? true,
    ...(options.partitions ? { partitions: options.partitions } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  const prefix = options.namePrefix ?? '';
  const processes: ServiceProcess[] = [];
  const start = async (kind: ServiceKind, name: string, extraEnv: Record<string, string> = {}) => {
    const nodeArgs = kind === 'worker' ? options.nodeArgs?.worker : options.nodeArgs?.api;
    const started = await startService(
      kind,
      { ...env, ...extraEnv },
      { name: `${prefix}${name}`, outputDir: options.outputDir, root: options.serviceRoot, ...(nodeArgs ? { nodeArgs } : {}) },
    );
    processes.push(started);
    return started;
  };
  let apisStarted = 0;
  const startApi = (processes: number) => {
    const name = apisStarted++ === 0 ? 'api' : `api-${apisStarted}`;
    return processes > 1 ? start('api-launcher', name, { API_PROCESSES: String(processes) }) : start('api', name);
  };
  let workersStarted = 0;
  const startWorker = async (extraEnv: Record<string, string> = {}) => {
    const worker = await start('worker', `worker-${(workersStarted += 1)}`, extraEnv);
    stack.workers.push(worker);
    return worker;
  };
  let turn = 0;
  const client = httpClient(() => stack.apis[turn++ % stack.apis.length]!.url, { checkDocuments: true });

  const stack: Stack = {
    database,
    env,
    queuePrefix,
    api: undefined as unknown as ServiceProcess,
    apis: [],
    workers: [],
    processes,
    startWorker,
    call: client.call,
    createProvider: (type) => seedProvider(client, type, `${type} ${label}`),
    async redeploy({ apiProcesses = 1, workerCount }) {
      if (options.supervised) throw new Error('redeploy: a supervised stack restarts its own processes');
      await Promise.all([...stack.apis, ...stack.workers].map((process) => process.stop('SIGTERM')));
      stack.workers = [];
      stack.apis = [await startApi(apiProcesses)];
      stack.api = stack.apis[0]!;
      await Promise.all(Array.from({ length: workerCount }, () => startWorker()));
    },
    async stop(stopOptions = {}) {
      await Promise.all(processes.map((process) => process.stop('SIGTERM')));
      client.close();
      if (stopOptions.keepDatabase) await database.close();
      else await database.drop();
    },
  };
  try {
    await options.prepareDatabase?.(database);
    if (options.supervised) stack.apis.push(await start('supervisor', 'npm-start'));
    const first = options.supervised ? 1 : 0;
    apisStarted = first;
    stack.apis.push(
      ...(await Promise.all(Array.from({ length: (options.apiCount ?? 1) - first }, () => startApi(options.apiProcesses ?? 1)))),
    );
    stack.api = stack.apis[0]!;
    await Promise.all(Array.from({ length: options.workerCount ?? (options.supervised ? 0 : 1) }, () => startWorker()));
  } catch (error) {
    await stack.stop();
    throw error;
  }
  return stack;
}
