/**
 * `npm run soak -- --minutes N`: the service under steady full ingest (single
 * events and batches, 32 callers back to back) for N minutes on the suite's
 * own Postgres and Redis, printing per minute: throughput, p99, API and
 * worker RSS, Redis used_memory and the matcher's backlog. The callers pause
 * while the backlog is over `--max-backlog` (default 10,000 events): ingest
 * outruns matching on two cores, and a queue growing for ten minutes would
 * hide a leak in Redis and worker memory behind expected growth; so the
 * soak runs at what the service sustains end to end. RSS is flat when
 * each process ends within 1.5x of its RSS after the first minute (the
 * benchmark's soak rule, docs/performance.md); exits 1 otherwise, or when
 * the backlog does not drain after the load stops.
 */
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { count } from 'drizzle-orm';
import { pendingEvents } from '../../shared/db/schema/index.js';
import { nothingPending } from '../../shared/testing/progress.js';
import { quantile } from '../../shared/testing/quantile.js';
import { startPrivatePostgres } from '../harness/private-postgres.js';
import { rssMb } from '../harness/proc-stats.js';
import { startPrivateRedis } from '../harness/redis-server.js';
import { newEvent } from './harness/event-load.js';
import { sleep } from './harness/scenario.js';
import { openStack, type Stack } from './harness/stack.js';

const USAGE = 'usage: npm run soak -- --minutes <n> [--callers <n>] [--max-backlog <events>]';
const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(argv[at + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} needs a positive number\n${USAGE}`);
  return value;
};
const minutes = option('--minutes', 10);
const callers = Math.round(option('--callers', 32));
const maxBacklog = option('--max-backlog', 10_000);
const FLAT_RATIO = 1.5;

const startedAt = new Date();
const loadBefore = loadavg();
const outputDir = mkdtempSync(join(tmpdir(), 'qcr-soak-'));
const infra = { postgres: await startPrivatePostgres(), redis: await startPrivateRedis(), outputDir };
let exitCode = 0;
try {
  const stack = await openStack(infra, 'soak', 1, { usersPerPlatform: 200 });
  try {
    exitCode = await soak(stack);
  } finally {
    await stack.close();
  }
} finally {
  await infra.redis.destroy();
  await infra.postgres.destroy();
}
process.exit(exitCode);

interface Minute {
  events: number;
  requests: number;
  failures: number;
  latencies: number[];
}

async function soak(stack: Stack): Promise<number> {
  const tenant = stack.tenants[0]!;
  const processes = [stack.api, ...stack.workers];
  let current: Minute = { events: 0, requests: 0, failures: 0, latencies: [] };
  let running = true;
  let backlog = 0;
  const watcher = (async () => {
    while (running) {
      const [row] = await stack
        .db()
        .select({ n: count() })
        .from(pendingEvents)
        .catch(() => [undefined]);
      backlog = row?.n ?? backlog;
      await sleep(1_000);
    }
  })();
  const load = Promise.all(
    Array.from({ length: callers }, async () => {
      while (running) {
        if (backlog > maxBacklog) {
          await sleep(100);
          continue;
        }
        const batch = stack.random.chance(0.2);
        const answer = batch
          ? await stack.client.call('POST', '/v1/events/batch', {
              headers: tenant.headers,
              body: { events: Array.from({ length: 20 }, () => newEvent(stack.random, tenant, { inOrder: true })) },
            })
          : await stack.client.call('POST', '/v1/events', {
              headers: tenant.headers,
              body: newEvent(stack.random, tenant, { inOrder: true }),
            });
        current.requests += 1;
        current.latencies.push(answer.ms);
        if (answer.status === 200) current.events += batch ? 20 : 1;
        else current.failures += 1;
      }
    }),
  );
  const header = [
    'minute',
    'events/s',
    'requests/s',
    'p99 ms',
    'failed',
    ...processes.map((p) => `${p.name} RSS MiB`),
    'Redis used_memory MiB',
    'backlog',
  ];
  console.log(
    `\n${startedAt.toISOString()} — soak, ${minutes} min, ${callers} callers (80% single events, 20% batches of 20), pausing while the backlog is over ${maxBacklog}`,
  );
  console.log(
    `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; load average ${loadBefore.map((v) => v.toFixed(2)).join(' / ')} before; Node ${process.version}; process output: ${outputDir}\n`,
  );
  console.log(`| ${header.join(' | ')} |\n| ${header.map(() => '---').join(' | ')} |`);
  const rss: number[][] = processes.map(() => []);
  for (let minute = 1; minute <= minutes; minute += 1) {
    await sleep(60_000);
    const done = current;
    current = { events: 0, requests: 0, failures: 0, latencies: [] };
    for (const [i, process] of processes.entries()) rss[i]!.push(rssMb(process.pid));
    const redisMb = (await stack.infra.redis.usedMemory()) / 2 ** 20;
    const cells = [
      String(minute),
      Math.round(done.events / 60).toLocaleString('en-US'),
      Math.round(done.requests / 60).toLocaleString('en-US'),
      quantile(done.latencies, 0.99).toFixed(1),
      String(done.failures),
      ...rss.map((series) => String(series.at(-1))),
      redisMb.toFixed(1),
      String(backlog),
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
  running = false;
  await Promise.all([load, watcher]);
  const drainStart = Date.now();
  let drained = false;
  while (!drained && Date.now() - drainStart < 120_000) {
    drained = (await nothingPending(stack.db()).catch(() => undefined)) === true;
    if (!drained) await sleep(500);
  }
  const verdicts = processes.map((process, i) => {
    const series = rss[i]!;
    const ratio = series.at(-1)! / series[0]!;
    return {
      name: process.name,
      ratio,
      flat: ratio <= FLAT_RATIO,
      first: series[0]!,
      last: series.at(-1)!,
      peak: Math.max(...series),
    };
  });
  console.log('');
  for (const v of verdicts)
    console.log(
      `${v.name}: RSS ${v.first} MiB after minute 1, ${v.last} MiB at the end (peak ${v.peak}): ${v.ratio.toFixed(2)}x, ${v.flat ? 'flat' : 'NOT FLAT'} (<= ${FLAT_RATIO}x)`,
    );
  console.log(
    `backlog ${drained ? `drained ${((Date.now() - drainStart) / 1000).toFixed(1)} s after the load stopped` : 'NOT drained within 120 s'}; load average ${loadavg()
      .map((v) => v.toFixed(2))
      .join(' / ')} at the end`,
  );
  const crashed = stack.processes.filter((process) => process.exit && !process.killedOnPurpose);
  if (crashed.length) console.log(`exited during the soak: ${crashed.map((process) => process.name).join(', ')}`);
  return verdicts.every((v) => v.flat) && drained && crashed.length === 0 ? 0 : 1;
}
