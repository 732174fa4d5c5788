import { sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { createTestDatabase, uniqueSuffix, type TestDatabase } from '../../shared/testing/database.js';
import { startService, type ServiceProcess } from '../../e2e/harness/service.js';
import { CpuMeter } from '../harness/cpu-meter.js';
import type { BenchContext } from '../harness/context.js';
import { createHttpClient, type HttpClient } from './http-client.js';

export interface WorldStack {
  database: TestDatabase;
  api: ServiceProcess;
  worker: ServiceProcess & { metricsUrl: string };
  http: HttpClient;
  meter: CpuMeter;
  close(): Promise<void>;
}

/**
 * The world's own deployment, as `npm start` runs one: a fresh database, the
 * API and one worker with the run's production settings, so the world's
 * figures do not depend on what the micro-benchmarks stored before it.
 */
export async function openWorldStack(ctx: BenchContext): Promise<WorldStack> {
  const database = await createTestDatabase('bench-world');
  // BENCH_LOG_STATEMENTS=1: every statement of this database goes to the server log with its duration (Postgres statistics without pg_stat_statements).
  if (process.env.BENCH_LOG_STATEMENTS) await database.db.execute(sql.raw(`alter database "${database.name}" set log_min_duration_statement = 0`));
  if (process.env.BENCH_PG_STATEMENTS) await database.db.execute(sql`create extension if not exists pg_stat_statements`);
  const redis = new Redis(ctx.env.REDIS_URL!, { maxRetriesPerRequest: 1 });
  // BENCH_WORLD_ENV='{"MATCH_BATCHES_IN_FLIGHT":"1"}': settings of the world's processes to compare (A/B in one build).
  const extra = process.env.BENCH_WORLD_ENV ? (JSON.parse(process.env.BENCH_WORLD_ENV) as Record<string, string>) : {};
  const env = { ...ctx.env, DATABASE_URL: database.url, QUEUE_PREFIX: `bench-world-${uniqueSuffix()}`, ...extra };
  const profile = (on: boolean) => (on ? ['--cpu-prof', `--cpu-prof-dir=${ctx.outputDir}`] : []);
  const started: ServiceProcess[] = [];
  const close = async () => {
    await Promise.all(started.map((process) => process.stop()));
    redis.disconnect();
    // BENCH_KEEP_DB=1: the world's database stays (its name is logged), to look at its plans afterwards.
    if (process.env.BENCH_KEEP_DB) process.stderr.write(`world database kept: ${database.name}\n`);
    else await database.drop();
  };
  try {
    const api = await startService('api', env, { name: 'world-api', outputDir: ctx.outputDir, nodeArgs: profile(ctx.options.profileApi) });
    started.push(api);
    const worker = await startService('worker', env, { name: 'world-worker', outputDir: ctx.outputDir, nodeArgs: profile(ctx.options.profileWorkers) });
    started.push(worker);
    const http = createHttpClient(api.url, 256);
    return {
      database,
      api,
      worker: { ...worker, metricsUrl: `${worker.url}/metrics` },
      http,
      meter: new CpuMeter(database.db, database.name, redis),
      close: async () => {
        http.close();
        await close();
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}
