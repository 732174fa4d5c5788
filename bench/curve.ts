/**
 * `npm run bench:curve -- [--deployments 8w2a,1w2a,…] [--world key=value,…]
 * [--start-rate <events/s>] [--start-polled-rate <events/s>] [--budget-s <s>]
 * [--max-steps <n>] [--out <dir>]`: the scaling curve. One production-shaped
 * world (bench/world, seeded once) measured under several deployments in
 * turn, W workers beside A API processes (`8w2a`; the launcher on one port
 * when A > 1), only the processes restarted between them. For each, the
 * highest sustained rate is searched on the grid `--world rates=…` without
 * reads, then on `polledRates=…` beside `pollRate` reads/s (sustained there
 * also needs read p99 ≤ 50 ms). The first deployment starts at the start
 * rates, the next from what the closest measured one sustained. Steps are
 * taken while the time budget leaves room for one more and the end (drain,
 * model check, stop), so the most important deployments go first; curve.json
 * and summary.txt are rewritten after every step. docs/scaling.md, "Measuring
 * the curve"; the device bundle (bench/device/) runs it on a larger machine.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { DEFAULT_WORLD, parseWorldOptions, type WorldOptions } from '../e2e/support/world/world-options.js';
import { seedProductionWorld } from '../e2e/support/world/world-seed.js';
import { projectRoot } from '../shared/db/project-root.js';
import { eventually } from '../shared/testing/eventually.js';
import { type CurveReport, type DeploymentResult, namesOf, type Search, writeReport } from './curve/report.js';
import { deploymentName, parseDeployments, searchSustained, startingRate } from './curve/search.js';
import { parseOptions } from './harness/options.js';
import { keptUp, openWorldRun, type Step, type WorldRun } from './world/world-run.js';
import { openWorldStack, type WorldStack } from './world/world-stack.js';

const READ_P99_BOUND_MS = 50;
// Time kept for the end: the last drain, the model check, stopping every process.
const END_RESERVE_MS = 30_000;
// A step's time beyond its seconds of load: the lag reading's wait, the meters, the backlog count.
const STEP_OVERHEAD_MS = 3_500;
// Restarting the processes, their partitions shared out, the warm-up.
const DEPLOY_COST_MS = 20_000;
const GRID = Array.from({ length: 10 }, (_, i) => (i + 1) * 4_000);
const CURVE_WORLD: WorldOptions = { ...DEFAULT_WORLD, rates: GRID, polledRates: GRID };

const USAGE =
  'usage: npm run bench:curve -- [--deployments 8w2a,1w2a,...] [--world key=value,...] [--start-rate n] [--start-polled-rate n] [--budget-s s] [--max-steps n] [--warm-poll-rate n] [--out dir] [--process-logs dir]';

function parseArgs(argv: readonly string[]) {
  const args = {
    deployments: parseDeployments('8w2a,1w2a,4w2a,2w2a,8w1a,4w1a,2w1a,1w1a'),
    world: CURVE_WORLD,
    startRate: 20_000,
    startPolledRate: 12_000,
    budgetS: 0,
    maxSteps: 4,
    warmPollRate: 5_000,
    out: join(projectRoot(), 'bench', 'results', `curve-${new Date().toISOString().replace(/[:.]/g, '-')}`),
    // The processes' logs (an access line a request: large); a fresh temporary folder unless given.
    processLogs: '',
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i]!, argv[i + 1] ?? ''];
    const number = () => {
      const parsed = Number(value);
      if (value === '' || !Number.isFinite(parsed) || parsed < 0) throw new Error(`${flag} needs a number\n${USAGE}`);
      return parsed;
    };
    if (flag === '--deployments') args.deployments = parseDeployments(value);
    else if (flag === '--world') args.world = parseWorldOptions(value, args.world);
    else if (flag === '--start-rate') args.startRate = number();
    else if (flag === '--start-polled-rate') args.startPolledRate = number();
    else if (flag === '--budget-s') args.budgetS = number();
    else if (flag === '--max-steps') args.maxSteps = Math.max(1, Math.round(number()));
    else if (flag === '--warm-poll-rate') args.warmPollRate = Math.max(1, number());
    else if (flag === '--out') args.out = value;
    else if (flag === '--process-logs') args.processLogs = value;
    else throw new Error(`unknown option ${flag}\n${USAGE}`);
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
const startedMs = Date.now();
const deadlineMs = args.budgetS > 0 ? startedMs + args.budgetS * 1000 : Number.POSITIVE_INFINITY;
const timeLeftMs = () => deadlineMs - Date.now();
const log = (message: string) => process.stderr.write(`[curve ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const first = args.deployments[0]!;
const world: WorldOptions = { ...args.world, apis: first.apis, workers: first.workers };

const report: CurveReport = {
  startedAt: new Date(startedMs).toISOString(),
  updatedAt: '',
  status: 'running',
  machine: {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'cpu',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadBefore: loadavg()[0]!,
    node: process.version,
    postgres: '',
    redis: '',
  },
  settings: {
    world,
    deployments: namesOf(args.deployments),
    startRate: args.startRate,
    startPolledRate: args.startPolledRate,
    readP99BoundMs: READ_P99_BOUND_MS,
    budgetEndsAt: Number.isFinite(deadlineMs) ? new Date(deadlineMs).toISOString() : null,
  },
  seeding: null,
  deployments: [],
  notRun: namesOf(args.deployments),
  modelCheck: null,
  notes: [],
};
const save = () => writeReport(args.out, report);

let stack: WorldStack | undefined;
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    log(`${signal}: writing what finished and stopping`);
    report.status = 'interrupted';
    save();
    void Promise.race([stack?.close(), new Promise((resolve) => setTimeout(resolve, 10_000))]).finally(() => process.exit(1));
  });

const processLogs = args.processLogs || mkdtempSync(join(tmpdir(), 'qcr-curve-'));
mkdirSync(processLogs, { recursive: true });
log(
  `results in ${args.out}, process logs in ${processLogs}; deployments ${namesOf(args.deployments).join(', ')}; budget ${args.budgetS || 'none'} s`,
);
save();
try {
  stack = await openWorldStack({ ...parseOptions([]), world }, processLogs, first);
  await describeServers(stack);
  const seedStart = performance.now();
  const seeded = await seedProductionWorld(stack.client, world, 0, log);
  report.seeding = { seconds: (performance.now() - seedStart) / 1000, users: world.users };
  save();
  const run = openWorldRun(stack, seeded, world, log);
  const stopped = await measureDeployments(stack, run);
  report.status = stopped ? 'budget' : 'complete';
  await finalCheck(run);
  save();
} catch (error) {
  report.status = 'failed';
  report.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
  log(`failed: ${report.error}`);
  save();
} finally {
  await stack?.close().catch((error) => log(`stopping the stack: ${error}`));
}
log(`done: ${report.status}; ${join(args.out, 'summary.txt')}`);
process.exit(report.status === 'failed' ? 1 : 0);

/** Each deployment in turn while time is left; true when the budget stopped it before the last. */
async function measureDeployments(stack: WorldStack, run: WorldRun): Promise<boolean> {
  const stepCostMs = world.stepS * 1000 + STEP_OVERHEAD_MS;
  const canStep = () => timeLeftMs() > stepCostMs + END_RESERVE_MS;
  const drainTimeoutMs = () => Math.max(5_000, timeLeftMs() - END_RESERVE_MS);
  let pollersWarm = false;
  for (const [index, deployment] of args.deployments.entries()) {
    if (index > 0) {
      if (timeLeftMs() < DEPLOY_COST_MS + stepCostMs + END_RESERVE_MS) return true;
      log(`deploying ${deploymentName(deployment)}`);
      await stack.redeploy(deployment);
    }
    report.notRun = report.notRun.filter((name) => name !== deploymentName(deployment));
    const result: DeploymentResult = {
      deployment,
      name: deploymentName(deployment),
      apiPids: 0,
      partitionsHeld: await sharedOut(stack),
      alone: null,
      polled: null,
    };
    report.deployments.push(result);
    await run.warmUp();
    result.apiPids = stack.apiPids().length;
    log(`${result.name}: ${result.apiPids} API processes metered, partitions held ${result.partitionsHeld.join(' + ')}`);
    const measured = (pick: (d: DeploymentResult) => Search | null) =>
      report.deployments.filter((d) => d !== result && pick(d)).map((d) => ({ deployment: d.deployment, best: pick(d)!.best }));
    // Into `into`, in the report from the start: a run stopped midway keeps the steps it took.
    const search = async (into: Search, rates: number[], pollRate: number, sustained: (step: Step) => boolean) => {
      const found = await searchSustained({
        grid: rates,
        start: into.start,
        maxSteps: args.maxSteps,
        canStep,
        measure: async (rate) => {
          const step = await run.step(rate, pollRate, { drainTimeoutMs: drainTimeoutMs() });
          into.steps.push(step);
          save();
          return step;
        },
        sustained,
      });
      Object.assign(into, { best: found.best, firstBehind: found.firstBehind, bracketed: found.bracketed });
      save();
    };
    const fresh = (start: number): Search => ({ steps: [], best: null, firstBehind: null, bracketed: false, start });
    const lowest = (rates: number[]) => Math.min(...rates);
    const alone = fresh(
      startingRate(
        deployment,
        measured((d) => d.alone),
        args.startRate,
        lowest(world.rates),
      ),
    );
    result.alone = alone;
    await search(alone, world.rates, 0, keptUp);
    const last = index === args.deployments.length - 1;
    if (!canStep()) return !last;
    if (world.pollRate <= 0) continue;
    if (!pollersWarm) {
      // Pollers in steady state hold a tag for every user they read before: one pass over everyone (not measured).
      const warmMs = (world.users / args.warmPollRate) * 1000;
      if (timeLeftMs() < warmMs + stepCostMs + END_RESERVE_MS) return !last;
      log(`pollers: reading all ${world.users} users once at ${args.warmPollRate}/s`);
      await run.traffic.warmPollers(args.warmPollRate);
      pollersWarm = true;
    }
    const polledStart = Math.min(
      startingRate(
        deployment,
        measured((d) => d.polled),
        args.startPolledRate,
        lowest(world.polledRates),
      ),
      alone.best ?? lowest(world.polledRates),
    );
    result.polled = fresh(polledStart);
    await search(result.polled, world.polledRates, world.pollRate, readsWithinBound);
  }
  return false;
}

/** Kept up, and the reads answered within the bound (200 and 304) with none failing. */
function readsWithinBound(step: Step): boolean {
  const reads = step.reads;
  return (
    keptUp(step) &&
    reads !== undefined &&
    reads.failures === 0 &&
    reads.p99Ok <= READ_P99_BOUND_MS &&
    reads.p99NotModified <= READ_P99_BOUND_MS
  );
}

/** Waits (20 s at most) until the workers hold every partition between them, evenly; answers who holds how many. */
async function sharedOut(stack: WorldStack): Promise<number[]> {
  const even = (held: number[]) =>
    held.reduce((a, b) => a + b, 0) === stack.partitions && Math.max(...held) - Math.min(...held) <= 1;
  try {
    return await eventually(
      async () => {
        const held = await stack.partitionsHeld();
        return even(held) ? held : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 250, what: 'the partitions shared out' },
    );
  } catch {
    const held = await stack.partitionsHeld();
    report.notes.push(`partitions not shared out evenly within 20 s: ${held.join(' + ')} of ${stack.partitions}`);
    return held;
  }
}

/** The last drain and the model check over every step of every deployment, within what the budget left. */
async function finalCheck(run: WorldRun) {
  const timeoutMs = Number.isFinite(deadlineMs) ? Math.max(5_000, timeLeftMs() - 10_000) : 600_000;
  try {
    const check = await run.drainAndCheck(timeoutMs);
    report.modelCheck = {
      users: check.users,
      walks: check.walks,
      events: run.history.eventCount,
      conflicts: run.history.conflicts,
      rejected: run.traffic.rejected,
      mismatches: check.mismatches.length,
      first: check.mismatches.slice(0, 10),
    };
  } catch (error) {
    report.modelCheck = { skipped: `the backlog did not drain in time (${error instanceof Error ? error.message : error})` };
  }
}

/** Postgres' and Redis' versions, for the report. */
async function describeServers(stack: WorldStack) {
  const [row] = await stack.database.db.execute<{ version: string }>(sql`select version() as version`);
  report.machine.postgres = String(row?.version ?? '').replace(/ on .*/, '');
  const redis = new Redis(stack.redisUrl, { maxRetriesPerRequest: 1 });
  try {
    report.machine.redis = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? '';
  } finally {
    redis.disconnect();
  }
}
