import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { ServiceProcess } from '../../e2e/harness/service.js';
import { type StackOptions, startStack } from '../../e2e/harness/stack.js';
import { parseConfig } from '../../shared/config.js';
import { type HttpApiClient, httpClient } from '../../shared/testing/api-client.js';
import type { TestDatabase } from '../../shared/testing/database.js';
import { openQueueProducers, type QueueProducers } from '../../shared/wiring/queues.js';
import { CpuMeter } from './cpu-meter.js';
import { type LoadFigure, type LoadOptions, measureLoad } from './load.js';
import type { BenchOptions } from './options.js';
import { Results } from './results.js';
import { type BenchWorld, seedWorld } from './seed.js';

/** What every scenario gets: the running API, the database, the meters and the results so far. */
export interface BenchContext {
  options: BenchOptions;
  /** Log files of every process the run started. */
  outputDir: string;
  database: TestDatabase;
  /** Environment of the API and workers (database, queue prefix, admin token, production timings). */
  env: Record<string, string>;
  api: ServiceProcess & { url: string };
  /** Calls `api`, unchecked against the documents: the load generator shares the cores with what it measures. */
  client: HttpApiClient;
  meter: CpuMeter;
  results: Results;
  /** The seeded platform, chains and users (harness/seed.ts). */
  world: BenchWorld;
  /** autocannon against `url` at the run's duration and connections (both overridable), measuring the API's CPU. */
  load(options: LoadOptions & { url: string }, servingPid?: number): Promise<LoadFigure>;
  /** The queues as the run's API and workers address them (shared/wiring); the caller closes them. */
  openQueues(): QueueProducers;
  /** A worker (under `--cpu-prof` with --profile-workers), with `env` added to the run's; stopped by `close` if not before. */
  startWorker(env?: Record<string, string>): Promise<ServiceProcess & { metricsUrl: string }>;
  log(message: string): void;
}

/** A named part of the run; scenarios run in the order of bench/main.ts's list. */
export interface Scenario {
  name: string;
  run(ctx: BenchContext): Promise<void>;
}

const benchPartitions = (count: string | undefined): Record<string, string> =>
  count === undefined ? {} : { MATCHING_PARTITIONS: count };

/** The stack settings of every deployment a run measures: production timings, profiles as asked. */
export function benchStackOptions(options: BenchOptions, outputDir: string): StackOptions {
  const profile = (on: boolean) => (on ? ['--cpu-prof', `--cpu-prof-dir=${outputDir}`] : []);
  return {
    outputDir,
    // BENCH_SERVICE_ROOT=<another checkout, built>: that build measured by this bench (A/B runs, docs/performance.md).
    ...(process.env.BENCH_SERVICE_ROOT ? { serviceRoot: process.env.BENCH_SERVICE_ROOT } : {}),
    fastRecovery: false,
    partitions: 'shipped',
    nodeArgs: { api: profile(options.profileApi), worker: profile(options.profileWorkers) },
    env: {
      // Production defaults, written out: the figures include one access line per request at info.
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      RECONCILE_INTERVAL_MS: '5000',
      RECONCILE_MIN_AGE_MS: '10000',
      // Matching partitions: the service's default unless BENCH_MATCHING_PARTITIONS (or its old name,
      // BENCH_MATCHING_QUEUE_SHARDS) says otherwise, so a run measures what an operator starts with.
      ...benchPartitions(process.env.BENCH_MATCHING_PARTITIONS ?? process.env.BENCH_MATCHING_QUEUE_SHARDS),
    },
  };
}

/** A fresh database, the built API as its own process, the meters and the seeded world; `close` stops what it started. */
export async function openContext(options: BenchOptions, userCount: number): Promise<BenchContext & { close(): Promise<void> }> {
  const outputDir = mkdtempSync(join(tmpdir(), 'qcr-bench-'));
  const stack = await startStack('bench', { ...benchStackOptions(options, outputDir), queueLabel: 'bench', workerCount: 0 });
  const { database, env, api } = stack;
  const redis = new Redis(env.REDIS_URL!, { maxRetriesPerRequest: 1 });
  const meter = new CpuMeter(database.db, database.name, redis);

  const ctx: BenchContext & { close(): Promise<void> } = {
    world: undefined as unknown as BenchWorld,
    options,
    outputDir,
    database,
    env,
    api,
    client: httpClient(api.url),
    meter,
    results: new Results(),
    load: (load, servingPid = api.pid) =>
      measureLoad(meter, servingPid, {
        connections: options.connections,
        ...(options.quick ? { warmupS: 0.5 } : {}),
        ...load,
        duration: Number(load.duration ?? options.durationS),
      }),
    openQueues: () => openQueueProducers(parseConfig(env)),
    async startWorker(extraEnv = {}) {
      const worker = await stack.startWorker(extraEnv);
      return { ...worker, metricsUrl: `${worker.url}/metrics` };
    },
    log: (message) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`),
    async close() {
      ctx.client.close();
      await stack.stop();
      redis.disconnect();
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
