import { sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { processTree } from '../../e2e/harness/proc-stats.js';
import { startStack } from '../../e2e/harness/stack.js';
import { parseConfig } from '../../shared/config.js';
import type { Executor } from '../../shared/db/client.js';
import { autovacuumIsOn } from '../../shared/db/server-admin.js';
import { type HttpApiClient, httpClient } from '../../shared/testing/api-client.js';
import type { TestDatabase } from '../../shared/testing/database.js';
import { benchStackOptions } from '../harness/context.js';
import { CpuMeter } from '../harness/cpu-meter.js';
import type { BenchOptions } from '../harness/options.js';

/** How many processes of each kind a world deployment runs. */
export interface WorldDeployment {
  /** API processes on one port (more than one: the launcher, api/cluster-main.ts). */
  apis: number;
  workers: number;
}

/** `2 API processes, 3 workers`. */
export const deploymentText = ({ apis, workers }: WorldDeployment) =>
  `${apis} API process${apis === 1 ? '' : 'es'}, ${workers} worker${workers === 1 ? '' : 's'}`;

export interface WorldStack {
  database: TestDatabase;
  redisUrl: string;
  deployment: WorldDeployment;
  /** Every process serving the API now: the launcher and the processes it forked, or the one API. */
  apiPids(): number[];
  workerPids(): number[];
  /** The workers' /metrics, whose lag histograms add up to the deployment's. */
  workerMetricsUrls(): string[];
  /** MATCHING_PARTITIONS of the world's processes. */
  partitions: number;
  /** The matching partitions each worker holds now (by lease, from its /metrics). */
  partitionsHeld(): Promise<number[]>;
  /** The load's client of the API, following it across `redeploy` (unchecked: it shares the cores with what it measures). */
  client: HttpApiClient;
  meter: CpuMeter;
  /** Stops the API and workers and starts `deployment`'s on the same database and queues (the seeded world stays). */
  redeploy(deployment: WorldDeployment): Promise<void>;
  close(): Promise<void>;
}

/** How often the world looks for tables autovacuum would have analyzed or vacuumed by now. */
const CHECK_EVERY_MS = 5_000;

/**
 * The tables autovacuum, with its default settings, would analyze (rows
 * changed since the last ANALYZE past 50 + 10 % of the table) or vacuum (dead
 * rows past 50 + 20 %); for a partition, its partitioned table is analyzed
 * too, as the world did before (autovacuum leaves those to the operator).
 */
const DUE = sql`
  select * from (
    select c.oid::regclass::text as "table",
      s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0) as "analyze",
      s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0) as "vacuum",
      (select i.inhparent::regclass::text from pg_inherits i where i.inhrelid = c.oid) as "parent"
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
  ) tables
  where "analyze" or "vacuum"`;

interface DueTable extends Record<string, unknown> {
  table: string;
  analyze: boolean;
  vacuum: boolean;
  parent: string | null;
}

/** One pass of what autovacuum would have done by now (VACUUM cannot run in a transaction: one statement each). */
async function upkeep(db: Executor): Promise<void> {
  const due = await db.execute<DueTable>(DUE);
  const analyze = new Set<string>();
  for (const row of due) {
    if (row.vacuum) await db.execute(sql.raw(`vacuum ${row.table}`));
    if (row.analyze) analyze.add(row.table).add(row.parent ?? row.table);
  }
  if (analyze.size > 0) await db.execute(sql.raw(`analyze ${[...analyze].join(', ')}`));
}

/**
 * What autovacuum keeps up in production, and this machine's Postgres runs
 * without: statistics of tables that grow under the world's steps, and
 * tables that churn (pending_events) vacuumed. Without statistics, the
 * planner takes `id = any(...)` on users for a twentieth of the table and
 * scans all of it for every matching batch; analyzed once, tables that were
 * small then (the world starts with little progress) are scanned as they grow
 * (docs/performance.md, "Planner statistics"). Every 5 s the world does what
 * autovacuum's thresholds call for; its CPU counts as Postgres's, as
 * autovacuum's would. (Analyzing every table every 5 s, as the world first
 * did, cost Postgres about a fifth of its time at 1,000 events/s.)
 */
async function keepStatistics(db: Executor): Promise<{ stop(): void }> {
  if (await autovacuumIsOn(db)) return { stop: () => undefined };
  await db.execute(sql`analyze`);
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void upkeep(db)
      .catch(() => undefined)
      .finally(() => {
        running = false;
      });
  }, CHECK_EVERY_MS);
  return { stop: () => clearInterval(timer) };
}

/**
 * The world's own deployment, as `npm start` runs one: a fresh database, the
 * API (`apis` processes on one port) and `workers` workers with the run's
 * production settings, so the world's figures do not depend on what the
 * micro-benchmarks stored before it.
 */
export async function openWorldStack(
  options: BenchOptions,
  outputDir: string,
  deployment: WorldDeployment = options.world,
): Promise<WorldStack> {
  const settings = benchStackOptions(options, outputDir);
  // BENCH_WORLD_ENV='{"MATCH_BATCHES_IN_FLIGHT":"1"}': settings of the world's processes to compare (A/B in one build).
  const extra = process.env.BENCH_WORLD_ENV ? (JSON.parse(process.env.BENCH_WORLD_ENV) as Record<string, string>) : {};
  const stack = await startStack('bench-world', {
    ...settings,
    queueLabel: 'bench-world',
    namePrefix: 'world-',
    apiProcesses: deployment.apis,
    workerCount: deployment.workers,
    env: { ...settings.env, ...extra },
    async prepareDatabase(database) {
      // BENCH_LOG_STATEMENTS=1: every statement of this database goes to the server log with its duration (Postgres statistics without pg_stat_statements).
      if (process.env.BENCH_LOG_STATEMENTS)
        await database.db.execute(sql.raw(`alter database "${database.name}" set log_min_duration_statement = 0`));
      if (process.env.BENCH_PG_STATEMENTS) await database.db.execute(sql`create extension if not exists pg_stat_statements`);
      // BENCH_AUTO_EXPLAIN=15ms: the plan of every statement over that time, those run by triggers and functions included,
      // with its buffers, in the server log (how the walks version trigger's scan of users was found, drizzle/0018).
      if (process.env.BENCH_AUTO_EXPLAIN) {
        const settings = [
          `session_preload_libraries = 'auto_explain'`,
          `auto_explain.log_min_duration = '${process.env.BENCH_AUTO_EXPLAIN.replace(/[^0-9a-z]/gi, '')}'`,
          'auto_explain.log_nested_statements = on',
          'auto_explain.log_analyze = on',
          'auto_explain.log_timing = off',
          'auto_explain.log_buffers = on',
        ];
        for (const setting of settings) await database.db.execute(sql.raw(`alter database "${database.name}" set ${setting}`));
      }
    },
  });
  const { database } = stack;
  const analyzer = await keepStatistics(database.db);
  const redis = new Redis(stack.env.REDIS_URL!, { maxRetriesPerRequest: 1 });
  const client = httpClient(() => stack.api.url, { maxSockets: 256 });
  const world: WorldStack = {
    database,
    redisUrl: stack.env.REDIS_URL!,
    deployment: { apis: deployment.apis, workers: deployment.workers },
    apiPids: () => processTree(stack.api.pid),
    workerPids: () => stack.workers.map((worker) => worker.pid),
    workerMetricsUrls: () => stack.workers.map((worker) => `${worker.url}/metrics`),
    partitions: parseConfig(stack.env).MATCHING_PARTITIONS,
    partitionsHeld: () =>
      Promise.all(
        world.workerMetricsUrls().map(async (url) => {
          const text = await (await fetch(url)).text();
          return Number(/^qcr_worker_partitions_held\{by="lease"\} (\d+)/m.exec(text)?.[1] ?? 0);
        }),
      ),
    client,
    meter: new CpuMeter(database.db, database.name, redis),
    async redeploy(next) {
      await stack.redeploy({ apiProcesses: next.apis, workerCount: next.workers });
      world.deployment = { apis: next.apis, workers: next.workers };
    },
    async close() {
      analyzer.stop();
      client.close();
      // BENCH_KEEP_DB=1: the world's database stays (its name is logged), to look at its plans afterwards.
      const keepDatabase = Boolean(process.env.BENCH_KEEP_DB);
      await stack.stop({ keepDatabase });
      redis.disconnect();
      if (keepDatabase) process.stderr.write(`world database kept: ${database.name}\n`);
    },
  };
  return world;
}
