/**
 * `npm run bench [-- --quick | --soak-minutes <m> | --only <names>]`: the
 * service's hot paths measured against baselines taken in the same run, on
 * this machine, at the same concurrency (docs/performance.md). The API and
 * workers run as their own processes with their output in files; the table
 * at the end gives every figure with its baseline, ratio and target.
 *
 * To add figures, write a Scenario (bench/scenarios/) and list it below; a
 * scenario can take ratios against earlier figures through ctx.results.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { peakRssMb, rssMb } from '../e2e/harness/proc-stats.js';
import { projectRoot } from '../shared/db/project-root.js';
import { openContext, type Scenario } from './harness/context.js';
import { parseOptions } from './harness/options.js';
import { baselines } from './scenarios/baselines.js';
import { httpIngest } from './scenarios/http-ingest.js';
import { httpReads } from './scenarios/http-reads.js';
import { leaderboards } from './scenarios/leaderboards.js';
import { matching } from './scenarios/matching.js';
import { matchingDrain } from './scenarios/matching-drain.js';
import { pipeline } from './scenarios/pipeline.js';
import { soak } from './scenarios/soak.js';
import { webhooks } from './scenarios/webhooks.js';
import { world } from './scenarios/world.js';

// Order matters: baselines first (every ratio needs them); the world, the run
// of record, on its own deployment; then the micro-benchmarks on the 200-user
// world (reads before the drain: the worker changes the users' progress); the
// leaderboards (a board of 1,000,000 users seeded apart, on their own platform); the soak last (it fills the database).
const scenarios: Scenario[] = [
  baselines,
  world,
  httpReads,
  httpIngest,
  matchingDrain,
  matching,
  pipeline,
  webhooks,
  leaderboards,
  soak,
];

const options = parseOptions(process.argv.slice(2));
const startedAt = new Date();
const loadBefore = loadavg()[0]!;
const ctx = await openContext(options, options.quick ? 50 : 200);
const apiRssAtStart = rssMb(ctx.api.pid);
try {
  for (const scenario of scenarios) {
    if (options.only && !options.only.includes(scenario.name)) continue;
    ctx.log(`${scenario.name}…`);
    await scenario.run(ctx);
  }
  ctx.results.add({ figure: 'API RSS at start', value: apiRssAtStart, unit: 'MiB' });
  ctx.results.add({ figure: 'API peak RSS', value: peakRssMb(ctx.api.pid), unit: 'MiB' });
} finally {
  await ctx.close();
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, load ${loadBefore.toFixed(2)} before the run`;
const header = [
  `${startedAt.toISOString()} — ${options.quick ? 'quick' : 'full'} run, ${options.durationS} s per figure, ${options.connections} connections`,
  `${machine}; Node ${process.version}`,
  `process output: ${ctx.outputDir}`,
];
console.log(`\n${header.join('\n')}\n\n${ctx.results.table()}\n`);
const folder = join(projectRoot(), 'bench', 'results');
mkdirSync(folder, { recursive: true });
const file = join(folder, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify({ startedAt, options, machine, node: process.version, results: ctx.results.rows }, null, 2));
console.log(`report: ${file}`);
process.exit(0);
