import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorldOptions } from '../../e2e/support/world/world-options.js';
import type { Step } from '../world/world-run.js';
import { type Deployment, deploymentName, type SearchResult } from './search.js';

/** A search over one grid, with where it started. */
export type Search = SearchResult<Step> & { start: number };

export interface DeploymentResult {
  deployment: Deployment;
  name: string;
  /** Processes found serving the API (the launcher and its forks) and the partitions each worker held after the start. */
  apiPids: number;
  partitionsHeld: number[];
  alone: Search | null;
  polled: Search | null;
}

export interface CurveReport {
  startedAt: string;
  updatedAt: string;
  /** running, complete, budget (stopped before the time budget ran out), interrupted (a signal) or failed. */
  status: 'running' | 'complete' | 'budget' | 'interrupted' | 'failed';
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGiB: number;
    loadBefore: number;
    node: string;
    postgres: string;
    redis: string;
  };
  settings: {
    world: WorldOptions;
    deployments: string[];
    startRate: number;
    startPolledRate: number;
    readP99BoundMs: number;
    budgetEndsAt: string | null;
  };
  seeding: { seconds: number; users: number } | null;
  deployments: DeploymentResult[];
  /** Deployments not measured for want of time. */
  notRun: string[];
  modelCheck:
    | { users: number; walks: number; events: number; conflicts: number; rejected: number; mismatches: number; first: string[] }
    | { skipped: string }
    | null;
  notes: string[];
  error?: string;
}

/** The step a search's figures are read at: its best sustained step, else its last. */
function stepOfRecord(search: Search | null): Step | undefined {
  if (!search) return undefined;
  return search.steps.find((step) => step.rate === search.best) ?? search.steps.at(-1);
}

const thousands = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (seconds: number) => (Number.isFinite(seconds) ? `≤ ${Math.round(seconds * 1000)} ms` : '> 10 s');
const cpu = (step: Step | undefined) => {
  if (!step) return '–';
  const c = step.cpuPerEventUs;
  return [c.api, c.worker, c.postgres, c.redis, c.generator].map((us) => us.toFixed(0)).join(' / ');
};

function sustainedText(search: Search | null): string {
  if (!search) return 'not run';
  if (search.steps.length === 0) return 'no time';
  const best = search.best === null ? 'none' : thousands(search.best);
  const behind = search.firstBehind === null ? '' : `, ${thousands(search.firstBehind)} behind`;
  return `${best}${behind}${search.bracketed ? '' : ' (not bracketed)'}`;
}

function stepLine(name: string, kind: string, step: Step): string {
  const reads = step.reads
    ? `, reads p99 ${step.reads.p99Ok.toFixed(0)} / ${step.reads.p99NotModified.toFixed(0)} ms (200 / 304, ${(step.reads.notModifiedShare * 100).toFixed(0)} % 304, ${step.reads.failures} failed)`
    : '';
  const shortfall = step.dropped || step.failed ? `, ${step.dropped} sends dropped, ${step.failed} failed` : '';
  // The load generator is one process: near a whole core, it bounds the step rather than the service.
  const generatorCores = (step.cpuPerEventUs.generator * step.achieved) / 1e6;
  return `  ${name} ${kind} ${thousands(step.rate)}/s: achieved ${thousands(step.achieved)}, backlog +${step.backlogGrowth}${shortfall}, lag p99 ${ms(step.lagP99S)}${reads}; CPU µs/event ${cpu(step)}; load generator ${(generatorCores * 100).toFixed(0)} % of a core`;
}

/** The readable summary: one line per deployment, the issue's targets, the model check, every step. */
function summaryText(report: CurveReport): string {
  const { machine, settings, world } = { ...report, world: report.settings.world };
  const lines = [
    `Quest-chain rewards: the scaling curve (bench/curve.ts), status ${report.status}`,
    `started ${report.startedAt}, written ${report.updatedAt}${settings.budgetEndsAt ? `, budget ends ${settings.budgetEndsAt}` : ''}`,
    `machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB, load ${machine.loadBefore.toFixed(2)} before; Node ${machine.node}; ${machine.postgres}; Redis ${machine.redis}`,
    `world: ${thousands(world.users)} users, ${world.chains} chains, Zipf s=${world.zipfS}, ${world.batchedShare * 100} % in batches of ${world.batchSize}; steps of ${world.stepS} s; polls ${thousands(world.pollRate)} reads/s`,
    `sustained: every send answered, backlog flat, answered → matched p99 ≤ 250 ms; while polling also read p99 ≤ ${settings.readP99BoundMs} ms (200 and 304)`,
    report.seeding ? `seeded ${thousands(report.seeding.users)} users in ${report.seeding.seconds.toFixed(1)} s` : 'not seeded',
    '',
    'deployment (workers w, API processes a) | no reads: sustained events/s | lag p99 | CPU µs/event API / worker / Postgres / Redis / load generator | polling: sustained events/s | lag p99 | read p99 200 / 304 ms | CPU µs/event',
  ];
  for (const d of report.deployments) {
    const alone = stepOfRecord(d.alone);
    const polled = stepOfRecord(d.polled);
    const reads = polled?.reads ? `${polled.reads.p99Ok.toFixed(0)} / ${polled.reads.p99NotModified.toFixed(0)}` : '–';
    lines.push(
      `${d.name} | ${sustainedText(d.alone)} | ${alone ? ms(alone.lagP99S) : '–'} | ${cpu(alone)} | ${sustainedText(d.polled)} | ${polled ? ms(polled.lagP99S) : '–'} | ${reads} | ${cpu(polled)}`,
    );
  }
  if (report.notRun.length > 0) lines.push(`not run (time): ${report.notRun.join(', ')}`);
  const top = report.deployments.find((d) => d.deployment.workers === 8 && d.deployment.apis === 2);
  if (top) {
    const judge = (search: Search | null, atLeast: number) =>
      search?.best != null
        ? `${search.best >= atLeast ? 'met' : 'missed'} (${thousands(search.best)})`
        : 'missed (none sustained)';
    lines.push(
      '',
      `targets, 8 workers + 2 API processes: no reads ≥ 20,000 events/s ${judge(top.alone, 20_000)}; polling ${thousands(world.pollRate)} reads/s ≥ 12,000 events/s with read p99 ≤ ${settings.readP99BoundMs} ms ${judge(top.polled, 12_000)}`,
    );
  }
  const check = report.modelCheck;
  lines.push(
    '',
    check === null
      ? 'model check: not reached'
      : 'skipped' in check
        ? `model check: skipped (${check.skipped})`
        : `model check: ${check.users} users, ${check.walks} walks, ${thousands(check.events)} accepted events, ${check.mismatches} mismatches, ${check.conflicts} id conflicts, ${check.rejected} events rejected${check.first.length ? `: ${check.first.join('; ')}` : ''}`,
  );
  if (report.notes.length > 0) lines.push('', ...report.notes.map((note) => `note: ${note}`));
  if (report.error) lines.push('', `error: ${report.error}`);
  lines.push('', 'steps:');
  for (const d of report.deployments) {
    const apis = d.deployment.apis > 1 ? `the launcher and ${d.apiPids - 1} API processes` : `${d.apiPids} API process`;
    lines.push(`${d.name}: ${apis} metered, partitions held ${d.partitionsHeld.join(' + ')}`);
    for (const step of d.alone?.steps ?? []) lines.push(stepLine(d.name, 'no reads', step));
    for (const step of d.polled?.steps ?? []) lines.push(stepLine(d.name, 'polling', step));
  }
  return `${lines.join('\n')}\n`;
}

/** Writes curve.json and summary.txt into `dir`, each whole (written aside, then renamed). */
export function writeReport(dir: string, report: CurveReport): void {
  mkdirSync(dir, { recursive: true });
  report.updatedAt = new Date().toISOString();
  const put = (name: string, text: string) => {
    writeFileSync(join(dir, `.${name}.partial`), text);
    renameSync(join(dir, `.${name}.partial`), join(dir, name));
  };
  put('curve.json', `${JSON.stringify(report, (_, value) => (value === Number.POSITIVE_INFINITY ? 'Infinity' : value), 2)}\n`);
  put('summary.txt', summaryText(report));
}

export const namesOf = (deployments: readonly Deployment[]) => deployments.map(deploymentName);
