/**
 * `npm run bench`: measures the three things our users care about on this
 * machine, against the built processes and the local Postgres and Redis:
 *   1. single-event ingest throughput and latency (POST /v1/events),
 *   2. batch ingest throughput (POST /v1/events/batch, 100 events a call),
 *   3. active-chains read throughput and latency for users with progress,
 * plus how fast one worker drains the matching backlog and the API's memory.
 * Figures vary with the machine's load: compare runs taken together, or the
 * ratios to the /healthz baseline measured in the same run.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { projectRoot } from '../shared/db/project-root.js';
import { eventually } from '../shared/testing/eventually.js';
import { startStack } from '../api/e2e/support/stack.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const READ_USERS = 200;

const rssMb = (pid: number) => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : NaN;
};

async function load(name: string, options: autocannon.Options) {
  const result = await autocannon({ duration: DURATION_S, connections: CONNECTIONS, ...options });
  const summary = {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
  console.log(JSON.stringify(summary));
  return summary;
}

// Logging stays at the production default (info: one line per request), so figures include its cost.
// Production reconciler timings (the e2e defaults poll every 300 ms, which would skew the drain figure).
const stack = await startStack('bench', { workerCount: 0, env: { RECONCILE_INTERVAL_MS: '5000', RECONCILE_MIN_AGE_MS: '10000' } });
try {
  const platform = await stack.createProvider('platform');
  const advertiser = await stack.createProvider('advertiser');
  const headers = { ...platform.headers, 'content-type': 'application/json' };
  for (let chain = 0; chain < 5; chain++) {
    await stack.http('POST', '/admin/v1/quest-chains', {
      headers: { authorization: `Bearer ${stack.env.ADMIN_TOKEN}` },
      body: {
        platform_id: platform.id,
        advertiser_id: advertiser.id,
        name: `bench chain ${chain}`,
        start_date: '2026-01-01T00:00:00Z',
        end_date: '2036-01-01T00:00:00Z',
        tasks: Array.from({ length: 5 }, (_, task) => ({
          sequence_number: task + 1,
          name: `task ${task + 1}`,
          condition_event_type: `step-${task % 3}`,
          reward_type: 'points',
          reward_name: 'points',
          reward_value: 10,
        })),
        chain_reward: { type: 'mystery_box', name: 'box' },
      },
    });
  }
  // Registered first, so every ingested event below is matched against their chains.
  for (let i = 0; i < READ_USERS; i++) await stack.http('POST', '/v1/users/register', { headers, body: { platform_user_id: `u-${i}` } });
  const rssBefore = rssMb(stack.api.child.pid!);
  // The floor of this machine right now: an answer with no database or Redis work.
  const baseline = await load('baseline GET /healthz', { url: `${stack.api.url()}/healthz` });

  let counter = 0;
  const single = await load('ingest single event', {
    url: `${stack.api.url()}/v1/events`,
    method: 'POST',
    headers,
    requests: [
      {
        setupRequest: (request) => {
          const n = counter++;
          const at = new Date(Date.UTC(2026, 1, 1) + n * 1000).toISOString();
          return { ...request, body: JSON.stringify({ user_id: `u-${n % READ_USERS}`, event_type: `step-${n % 3}`, timestamp: at, amount: 10 }) };
        },
      },
    ],
  });

  // One worker drains the backlog: matching throughput, every event matched for a registered user.
  const [{ pending }] = (await stack.database.db.execute<{ pending: number }>(sql`select count(*)::int as pending from events where processed_at is null`)) as unknown as [{ pending: number }];
  const drainStarted = performance.now();
  await stack.startWorker();
  await eventually(
    async () => {
      const [row] = await stack.database.db.execute<{ left: number }>(sql`
        select (select count(*)::int from events where processed_at is null) + (select count(*)::int from users where needs_evaluation) as left`);
      return row?.left === 0 ? true : undefined;
    },
    { timeoutMs: 15 * 60_000, intervalMs: 250, what: 'backlog drained' },
  );
  const drainSeconds = (performance.now() - drainStarted) / 1000;
  const matching = { name: 'matching backlog, one worker', events: pending, seconds: Math.round(drainSeconds * 10) / 10, eventsPerSecond: Math.round(pending / drainSeconds) };
  console.log(JSON.stringify(matching));

  let reader = 0;
  const read = await load('read active chains (5 chains x 5 tasks)', {
    url: `${stack.api.url()}/v1/quest-chains/active/u-0`,
    headers: platform.headers,
    requests: [{ setupRequest: (request) => ({ ...request, path: `/v1/quest-chains/active/u-${reader++ % READ_USERS}` }) }],
  });

  // Last, so its large backlog (left unmatched) does not disturb the read figures.
  let batchCounter = 0;
  const batch = await load('ingest batch of 100', {
    url: `${stack.api.url()}/v1/events/batch`,
    method: 'POST',
    headers,
    connections: Math.max(1, CONNECTIONS / 4),
    requests: [
      {
        setupRequest: (request) => {
          const base = batchCounter++ * 100;
          const events = Array.from({ length: 100 }, (_, i) => ({
            user_id: `b-${(base + i) % 1000}`,
            event_type: `step-${i % 3}`,
            timestamp: new Date(Date.UTC(2027, 0, 1) + (base + i) * 1000).toISOString(),
          }));
          return { ...request, body: JSON.stringify({ events }) };
        },
      },
    ],
  });

  const report = {
    date: new Date().toISOString(),
    durationSeconds: DURATION_S,
    connections: CONNECTIONS,
    results: [baseline, single, matching, read, batch],
    ratioToBaseline: {
      ingestSingle: Math.round((single.requestsPerSecond / baseline.requestsPerSecond) * 100) / 100,
      read: Math.round((read.requestsPerSecond / baseline.requestsPerSecond) * 100) / 100,
    },
    apiRssMb: { beforeLoad: rssBefore, afterLoad: rssMb(stack.api.child.pid!) },
  };
  const folder = join(projectRoot(), 'bench', 'results');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${report.date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(report, null, 2));
  console.log(`\nratios to /healthz: ingest ${report.ratioToBaseline.ingestSingle}, read ${report.ratioToBaseline.read}`);
  console.log(`API RSS: ${report.apiRssMb.beforeLoad} MB before load, ${report.apiRssMb.afterLoad} MB after. Report: ${file}`);
} finally {
  await stack.stop();
}
