import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createTestDatabase, uniqueSuffix, type TestDatabase } from '../../shared/testing/database.js';
import { CpuMeter } from './cpu-meter.js';
import { measureLoad, type LoadFigure, type LoadOptions } from './load.js';
import type { BenchOptions } from './options.js';
import { freePort, startProcess, type ServiceProcess } from '../../e2e/harness/service.js';
import { Results } from './results.js';
import { BENCH_ADMIN_TOKEN, seedWorld, type BenchWorld } from './seed.js';

const REDIS_URL = 'redis://127.0.0.1:6379';

/** What every scenario gets: the running API, the database, the meters and the results so far. */
export interface BenchContext {
  options: BenchOptions;
  /** Log files of every process the run started. */
  outputDir: string;
  database: TestDatabase;
  /** Environment of the API and workers (database, queue prefix, admin token, production timings). */
  env: Record<string, string>;
  api: ServiceProcess & { url: string };
  meter: CpuMeter;
  results: Results;
  /** The seeded platform, chains and users (harness/seed.ts). */
  world: BenchWorld;
  /** autocannon against `url` at the run's duration and connections (both overridable), measuring the API's CPU. */
  load(options: LoadOptions & { url: string }, servingPid?: number): Promise<LoadFigure>;
  /** A worker (under `--cpu-prof` with --profile-workers), with `env` added to the run's; stopped by `close` if not before. */
  startWorker(env?: Record<string, string>): Promise<ServiceProcess & { metricsUrl: string }>;
  log(message: string): void;
}

/** A named part of the run; scenarios run in the order of bench/main.ts's list. */
export interface Scenario {
  name: string;
  run(ctx: BenchContext): Promise<void>;
}

/** A fresh database, the built API as its own process, the meters and the seeded world; `close` stops what it started. */
export async function openContext(options: BenchOptions, userCount: number): Promise<BenchContext & { close(): Promise<void> }> {
  const outputDir = mkdtempSync(join(tmpdir(), 'qcr-bench-'));
  const database = await createTestDatabase('bench');
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    REDIS_URL,
    QUEUE_PREFIX: `bench-${uniqueSuffix()}`,
    ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
    HOST: '127.0.0.1',
    // Production defaults, written out: the figures include one access line per request at info.
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    RECONCILE_INTERVAL_MS: '5000',
    RECONCILE_MIN_AGE_MS: '10000',
    // Matching queues (docs/scaling.md compares 1 and 4 on one Redis): BENCH_MATCHING_QUEUE_SHARDS, default 1.
    MATCHING_QUEUE_SHARDS: process.env.BENCH_MATCHING_QUEUE_SHARDS ?? '1',
  };
  const started: ServiceProcess[] = [];
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const profile = ['--cpu-prof', `--cpu-prof-dir=${outputDir}`];
  const workerArgs = [...(options.profileWorkers ? profile : []), 'dist/worker/main.js'];
  const api = await startProcess({ name: 'api', args: [...(options.profileApi ? profile : []), 'dist/api/main.js'], env: { ...env, PORT: String(apiPort) }, outputDir, readyUrl: `${apiUrl}/healthz` });
  started.push(api);
  const meter = new CpuMeter(database.db, database.name, redis);
  let workers = 0;

  const ctx: BenchContext & { close(): Promise<void> } = {
    world: undefined as unknown as BenchWorld,
    options,
    outputDir,
    database,
    env,
    api: { ...api, url: apiUrl },
    meter,
    results: new Results(),
    load: (load, servingPid = api.pid) =>
      measureLoad(meter, servingPid, {
        connections: options.connections,
        ...(options.quick ? { warmupS: 0.5 } : {}),
        ...load,
        duration: Number(load.duration ?? options.durationS),
      }),
    async startWorker(extraEnv = {}) {
      const port = await freePort();
      workers += 1;
      const worker = await startProcess({
        name: `worker-${workers}`,
        args: workerArgs,
        env: { ...env, ...extraEnv, WORKER_HEALTH_PORT: String(port) },
        outputDir,
        readyUrl: `http://127.0.0.1:${port}/healthz`,
      });
      started.push(worker);
      return { ...worker, metricsUrl: `http://127.0.0.1:${port}/metrics` };
    },
    log: (message) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`),
    async close() {
      await Promise.all(started.map((child) => child.stop()));
      redis.disconnect();
      await database.drop();
    },
  };
  try {
    ctx.log(`seeding ${userCount} users with progress in ${outputDir}`);
    ctx.world = await seedWorld(ctx, userCount);
  } catch (error) {
    await ctx.close();
    throw error;
  }
  return ctx;
}
