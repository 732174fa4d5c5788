/**
 * `npm run test:chaos [-- --short] [--only <names>] [--seed <n>] [--cluster]`: the
 * service run as users run it (the built API and workers as processes) on
 * the suite's own Postgres and Redis, each scenario driving load while it
 * injects a fault, then a Jepsen-style check of what was acknowledged
 * against what is stored and counted (docs/reliability.md). Prints one
 * table; exits non-zero when an event is lost or counted twice, a check
 * fails, or a target is missed (in the short run: only targets whose
 * figure still means something over a few seconds; see reliability.md).
 * `--cluster` runs the scenarios that support it on a local Redis Cluster.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../shared/db/project-root.js';
import { startPrivatePostgres } from '../harness/private-postgres.js';
import { type LocalCluster, startLocalCluster } from '../harness/redis-cluster.js';
import { startPrivateRedis } from '../harness/redis-server.js';
import { parseChaosOptions } from './harness/options.js';
import { failures, type Row, renderTable } from './harness/report.js';
import type { RunContext, Scenario } from './harness/scenario.js';
import { type Infra, openStack } from './harness/stack.js';
import { apiSigkill } from './scenarios/api-kill.js';
import { badKeyFlood } from './scenarios/bad-key-flood.js';
import { noisyPlatform } from './scenarios/noisy-platform.js';
import { postgresRestartFast, postgresRestartImmediate } from './scenarios/postgres-restart.js';
import { rateLimitFlood } from './scenarios/rate-limits.js';
import { redisRestartEmpty, redisRestartKeep } from './scenarios/redis-restart.js';
import { sseFlood } from './scenarios/sse-flood.js';
import { workerSigkill, workerSigstop } from './scenarios/worker-faults.js';
import { worldFaults } from './scenarios/world-faults.js';

const SCENARIOS: Scenario[] = [
  workerSigkill,
  workerSigstop,
  apiSigkill,
  redisRestartKeep,
  redisRestartEmpty,
  postgresRestartFast,
  postgresRestartImmediate,
  noisyPlatform,
  sseFlood,
  rateLimitFlood,
  badKeyFlood,
  worldFaults,
];

const options = parseChaosOptions(process.argv.slice(2));
const log = (message: string) => process.stderr.write(`[chaos ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const ctx: RunContext = { short: options.short, options, log, pick: (short, full) => (options.short ? short : full) };
const selected = SCENARIOS.filter(
  (scenario) =>
    (!options.only || options.only.some((name) => scenario.name.toLowerCase().startsWith(name))) &&
    (!options.cluster || scenario.cluster),
);
if (selected.length === 0)
  throw new Error(
    `no scenario matches ${options.only?.join(',') ?? 'all'}${options.cluster ? ' on the cluster' : ''}; scenarios: ${SCENARIOS.filter(
      (s) => !options.cluster || s.cluster,
    )
      .map((s) => s.name)
      .join('; ')}`,
  );

const startedAt = new Date();
const loadBefore = loadavg();
const outputDir = mkdtempSync(join(tmpdir(), 'qcr-chaos-'));
log(
  `${options.short ? 'short' : 'full'} run${options.cluster ? ' on a Redis Cluster' : ''}, seed ${options.seed}, ${selected.length} scenarios; process output in ${outputDir}`,
);
// With its append-only file, so that a restart keeps what Redis held (the Redis restart scenarios, `restartKeeping`).
const infra: Infra = {
  postgres: await startPrivatePostgres(),
  redis: await startPrivateRedis({ persistent: true }),
  outputDir,
};
const cluster: LocalCluster | undefined = options.cluster ? await startLocalCluster() : undefined;
if (cluster) infra.cluster = cluster;
log(
  `private Postgres on ${infra.postgres.port}, Redis on ${infra.redis.port}${cluster ? `, Redis Cluster on ${cluster.ports.join(',')}` : ''}`,
);

const rows: Row[] = [];
try {
  for (const [index, scenario] of selected.entries()) {
    const began = Date.now();
    log(`${scenario.name}…`);
    const row: Row = {
      scenario: scenario.name,
      verdict: null,
      recoveryMs: null,
      figure: null,
      checks: [],
      notes: [],
      drainedMs: null,
    };
    try {
      const stack = await openStack(
        infra,
        `${index + 1}-${scenario.name}`,
        options.seed + index,
        scenario.stack?.(options.short),
      );
      try {
        const outcome = await scenario.run(stack, ctx);
        Object.assign(row, {
          recoveryMs: outcome.recoveryMs,
          figure: outcome.figure,
          checks: outcome.checks,
          notes: outcome.notes,
          phases: outcome.phases,
        });
        const settled = await stack.settle(scenario.drainTimeoutMs ?? ctx.pick(45_000, 90_000));
        row.verdict = settled.verdict;
        row.drainedMs = settled.drainedMs;
      } finally {
        await stack.close();
      }
    } catch (error) {
      row.error = error instanceof Error ? error.message : String(error);
    }
    rows.push(row);
    const reasons = failures(row, options.short);
    log(
      `${scenario.name}: ${reasons.length ? `FAIL (${reasons.join('; ')})` : 'ok'} in ${((Date.now() - began) / 1000).toFixed(0)} s`,
    );
  }
} finally {
  await cluster?.stop();
  await infra.redis.destroy();
  await infra.postgres.destroy();
}

const elapsedS = Math.round((Date.now() - startedAt.getTime()) / 1000);
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; load average ${loadBefore.map((v) => v.toFixed(2)).join(' / ')} before, ${loadavg()
  .map((v) => v.toFixed(2))
  .join(' / ')} after; Node ${process.version}`;
console.log(
  `\n${startedAt.toISOString()} — chaos suite, ${options.short ? 'short' : 'full'} run${options.cluster ? ' on a Redis Cluster' : ''} (seed ${options.seed}), ${elapsedS} s\n${machine}\nprocess output: ${outputDir}\n\n${renderTable(rows, options.short)}\n`,
);
const folder = join(projectRoot(), 'bench', 'results');
mkdirSync(folder, { recursive: true });
const file = join(folder, `chaos-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(
  file,
  JSON.stringify(
    { startedAt, options, machine, elapsedS, rows },
    (_, value) => (typeof value === 'bigint' ? String(value) : value),
    2,
  ),
);
console.log(`report: ${file}`);
const failed = rows.filter((row) => failures(row, options.short).length > 0);
console.log(failed.length ? `FAILED: ${failed.map((row) => row.scenario).join('; ')}` : 'all scenarios passed');
process.exit(failed.length ? 1 : 0);
