import { sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import type { ServiceProcess } from '../../e2e/harness/service.js';
import { startStack } from '../../e2e/harness/stack.js';
import { type HttpApiClient, httpClient } from '../../shared/testing/api-client.js';
import type { TestDatabase } from '../../shared/testing/database.js';
import { type BenchContext, benchStackOptions } from '../harness/context.js';
import { CpuMeter } from '../harness/cpu-meter.js';

export interface WorldStack {
  database: TestDatabase;
  api: ServiceProcess;
  worker: ServiceProcess & { metricsUrl: string };
  /** The load's client of `api` (unchecked: it shares the cores with what it measures). */
  client: HttpApiClient;
  meter: CpuMeter;
  close(): Promise<void>;
}

/**
 * The world's own deployment, as `npm start` runs one: a fresh database, the
 * API and one worker with the run's production settings, so the world's
 * figures do not depend on what the micro-benchmarks stored before it.
 */
export async function openWorldStack(ctx: BenchContext): Promise<WorldStack> {
  const settings = benchStackOptions(ctx.options, ctx.outputDir);
  // BENCH_WORLD_ENV='{"MATCH_BATCHES_IN_FLIGHT":"1"}': settings of the world's processes to compare (A/B in one build).
  const extra = process.env.BENCH_WORLD_ENV ? (JSON.parse(process.env.BENCH_WORLD_ENV) as Record<string, string>) : {};
  const stack = await startStack('bench-world', {
    ...settings,
    queueLabel: 'bench-world',
    namePrefix: 'world-',
    env: { ...settings.env, ...extra },
    async prepareDatabase(database) {
      // BENCH_LOG_STATEMENTS=1: every statement of this database goes to the server log with its duration (Postgres statistics without pg_stat_statements).
      if (process.env.BENCH_LOG_STATEMENTS)
        await database.db.execute(sql.raw(`alter database "${database.name}" set log_min_duration_statement = 0`));
      if (process.env.BENCH_PG_STATEMENTS) await database.db.execute(sql`create extension if not exists pg_stat_statements`);
    },
  });
  const { database } = stack;
  const redis = new Redis(stack.env.REDIS_URL!, { maxRetriesPerRequest: 1 });
  const client = httpClient(stack.api.url, { maxSockets: 256 });
  const close = async () => {
    client.close();
    // BENCH_KEEP_DB=1: the world's database stays (its name is logged), to look at its plans afterwards.
    const keepDatabase = Boolean(process.env.BENCH_KEEP_DB);
    await stack.stop({ keepDatabase });
    redis.disconnect();
    if (keepDatabase) process.stderr.write(`world database kept: ${database.name}\n`);
  };
  const worker = stack.workers[0]!;
  return {
    database,
    api: stack.api,
    worker: { ...worker, metricsUrl: `${worker.url}/metrics` },
    client,
    meter: new CpuMeter(database.db, database.name, redis),
    close,
  };
}
