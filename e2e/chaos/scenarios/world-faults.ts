import { type HttpApiClient, httpClient } from '../../../shared/testing/api-client.js';
import { nothingPending } from '../../../shared/testing/progress.js';
import { seededRandom } from '../../../shared/testing/random.js';
import { createEventSource } from '../../support/world/event-source.js';
import { checkAgainstModel, questCoverageText, SampledHistory, sampleUsers } from '../../support/world/world-check.js';
import { DEFAULT_WORLD, parseWorldOptions, type WorldOptions } from '../../support/world/world-options.js';
import { LOAD_CLIENT } from '../harness/answers.js';
import { retryUnacknowledged } from '../harness/event-load.js';
import {
  apiSigkill,
  type Fault,
  masterFailover,
  noticeCut,
  postgresRestart,
  recovery,
  redisRestart,
  servingSeen,
  workerSigkill,
} from '../harness/faults.js';
import { FaultLog, type FollowedUser, STALE_AFTER_MS, watchFreshness } from '../harness/freshness.js';
import type { History } from '../harness/history.js';
import { driveWorld, seedProductionTenants } from '../harness/production-world.js';
import { type Check, noCrashes, type Phase, type RunContext, type Scenario, seconds, sleep } from '../harness/scenario.js';
import type { Stack } from '../harness/stack.js';

// About half of what the world sustains with pollers on the shared two-core
// machine while other sessions load it (docs/reliability.md, "The world under
// faults"): faults are judged at a load the service carries, not at one it
// falls behind on anyway.
const FULL_RATE = 500;
const SHORT_RATE = 300;
const HOT_SAMPLED = 10;
// Share of the followed users taken from the hottest: they change all the time, the rest seldom.
const HOT_FOLLOWED_SHARE = 0.1;

/** The world's sizes for this run: the benchmark's shape, fewer users (and reads) than its run of record, `--world` on top. */
function worldOptionsOf(ctx: RunContext): WorldOptions {
  const base: WorldOptions = {
    ...DEFAULT_WORLD,
    users: ctx.pick(2_000, 20_000),
    sampledUsers: ctx.pick(100, 300),
    pollRate: ctx.pick(100, 200),
  };
  return parseWorldOptions(ctx.options.world, base);
}

/** The faults in turn; on the cluster a master's failover stands for the Redis restart (what clients see of it: its slots move). */
const faultsOf = (cluster: boolean): Fault[] => [
  workerSigkill,
  apiSigkill,
  cluster ? masterFailover : redisRestart,
  postgresRestart,
  noticeCut,
];

async function waitUntilDrained(stack: Stack, timeoutMs: number): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await nothingPending(stack.db()).catch(() => undefined)) return Date.now() - started;
    await sleep(250);
  }
  return null;
}

/** The acknowledged events of the sampled users, by the ids the API answered: what the world's model check replays. */
function sampledHistoryOf(history: History, sampled: Set<string>): SampledHistory {
  const sampledHistory = new SampledHistory(sampled);
  for (const event of history.events.values())
    if (event.ackedAt !== undefined) for (const id of event.ids) sampledHistory.record(event.body, id);
  return sampledHistory;
}

interface FaultOutcomes {
  phases: Phase[];
  checks: Check[];
  notes: string[];
}

/** Injects one fault, waits for its recovery, then lets the world run a while before the next. */
async function injectAndRecover(stack: Stack, ctx: RunContext, fault: Fault, log: FaultLog, into: FaultOutcomes) {
  const timeoutMs = ctx.pick(30_000, 60_000);
  ctx.log(`world-faults: ${fault.name}`);
  const injected = await fault.inject(stack, ctx, log);
  const recovered = await recovery(stack, injected.clearedAt, timeoutMs);
  const after = (ms: number | null) => (ms === null ? `not within ${timeoutMs / 1000} s` : `${seconds(ms)} s`);
  // Reported, not judged: on two loaded cores a busy API turns serving off whenever a probe is late behind its
  // event loop, and a recovery takes what the cores leave it. What must hold under any load (nothing lost, no
  // stale read, drained and serving again once the load stops) is checked at the end.
  into.phases.push({
    name: fault.name,
    recoveryMs: recovered.recoveryMs,
    detail: `waiting events matched ${after(recovered.drainedMs)}, cached answers served on every API ${after(recovered.servingMs)} after it cleared`,
  });
  into.checks.push(...injected.checks);
  into.notes.push(...injected.notes.map((note) => `${fault.name}: ${note}`));
  await sleep(ctx.pick(3_000, 15_000));
}

/**
 * The benchmark's production-shaped world (its chains, users, Zipf
 * producers and model check) at half the rate it sustains, with pollers,
 * on `npm start`'s supervisor plus a second API and a second worker, while
 * faults come one after another: the supervisor's worker SIGKILLed, its API
 * SIGKILLed, Redis restarted (on the cluster, a master failed over),
 * Postgres restarted, every API's notice connections cut. Each fault's
 * recovery runs from its clearing until what waited then is matched and
 * every API serves cached answers again. Pollers read GET active for users
 * the world touches and are judged against Postgres: no read may show an
 * older state more than 2 s after the change and its fault cleared. At the
 * end the checker (nothing lost, nothing counted twice) and the world's
 * model check of sampled users.
 */
export const worldFaults: Scenario = {
  name: 'world-faults',
  cluster: true,
  stack: () => ({ supervised: true, apis: 2, workers: 1, seedTenants: false }),
  drainTimeoutMs: 120_000,
  async run(stack, ctx) {
    const options = worldOptionsOf(ctx);
    const rate = ctx.options.rate ?? ctx.pick(SHORT_RATE, FULL_RATE);
    const { world, tenants } = await seedProductionTenants(stack.client, options, ctx.log);
    stack.tenants = tenants;
    // The registrations' evaluations are not the faults' backlog.
    await waitUntilDrained(stack, 180_000);

    // Generators of their own, drawn from the run's seed: the producers' events replay whatever the pollers draw.
    const random = seededRandom(stack.random.int(0, 2 ** 31));
    const source = createEventSource(random, world.users, options);
    const sampled = sampleUsers(source, world.users, options.sampledUsers, HOT_SAMPLED, random);
    const followedCount = Math.min(world.users.length, ctx.pick(400, 1_000));
    const followedIds = sampleUsers(source, world.users, followedCount, Math.round(followedCount * HOT_FOLLOWED_SHARE), random);
    const followed: FollowedUser[] = world.users
      .filter((user) => followedIds.has(user.platformUserId))
      .map((user) => ({ tenant: tenants[user.platformIndex]!, platformUserId: user.platformUserId }));

    const apiUrls = () => stack.apis.map((api) => api.url);
    let turn = 0;
    // A balancer without health checks in front of the APIs: calls to a killed one fail until it is back.
    const producers = httpClient(() => apiUrls()[turn++ % stack.apis.length]!, { ...LOAD_CLIENT, maxSockets: 256 });
    // One reading client per API address (a restarted API may come back on another).
    const readers = new Map<string, HttpApiClient>();
    const readerOf = (api: string) => {
      let reader = readers.get(api);
      if (!reader) readers.set(api, (reader = httpClient(api, { ...LOAD_CLIENT, maxSockets: 128 })));
      return reader;
    };
    const faultLog = new FaultLog();
    const freshness = watchFreshness({
      db: () => stack.db(),
      clientOf: readerOf,
      apis: apiUrls,
      followed,
      readsPerSecond: options.pollRate,
      faults: faultLog,
      random: seededRandom(stack.random.int(0, 2 ** 31)),
    });
    const load = driveWorld(producers, stack.history, tenants, source, rate);
    ctx.log(
      `world-faults: ${world.users.length} users, ${world.chains.length} chains, ${rate} events/s, ${options.pollRate} reads/s over ${followed.length} users`,
    );

    const faults: FaultOutcomes = { phases: [], checks: [], notes: [] };
    let drainedMs: number | null = null;
    let servingAtEndMs: number | null = null;
    try {
      try {
        await sleep(ctx.pick(4_000, 15_000));
        for (const fault of faultsOf(Boolean(stack.infra.cluster))) await injectAndRecover(stack, ctx, fault, faultLog, faults);
      } finally {
        const produced = await load.stop();
        await freshness.stopReading();
        faults.notes.unshift(
          `${Math.round(produced.started / produced.seconds)} events/s offered over ${produced.seconds.toFixed(0)} s (${produced.started} events, ${produced.dropped} sends dropped at the in-flight cap)`,
        );
      }
      // The client's retries, then the drain: afterwards every read must show what Postgres holds.
      await retryUnacknowledged(stack.client, stack.history, stack.tenants);
      drainedMs = await waitUntilDrained(stack, 120_000);
      servingAtEndMs = await servingSeen(stack, true, Date.now(), 30_000);
      await sleep(STALE_AFTER_MS + 500);
      await freshness.sweep();
    } finally {
      await freshness.stop();
      producers.close();
      for (const reader of readers.values()) reader.close();
    }
    const fresh = freshness.judge();
    const model = await checkAgainstModel(stack.db(), world, sampledHistoryOf(stack.history, sampled));

    const { phases, checks, notes } = faults;
    checks.push(
      noCrashes(stack),
      { name: 'drained after the load', ok: drainedMs !== null },
      { name: 'every API serves cached answers once the load has stopped', ok: servingAtEndMs !== null },
      { name: 'the pollers read through the run', ok: fresh.judged > 0, detail: `${fresh.judged} reads judged` },
      {
        name: "sampled users' progress equals the world's model (§5, §16)",
        ok: model.mismatches.length === 0,
        detail: `${model.mismatches.length} mismatches in ${model.walks} walks of ${model.users} users${model.mismatches.length ? `: ${model.mismatches.slice(0, 3).join('; ')}` : ''}`,
      },
    );
    const unanswered = [...fresh.unanswered].map(([status, n]) => `${status === 0 ? 'no answer' : status}×${n}`).join(', ');
    notes.push(
      `${fresh.judged} reads judged against Postgres${unanswered ? ` (not judged: ${unanswered})` : ''}; longest a read trailed a settled change: ${seconds(fresh.worstLagMs) ?? 'none trailed'} s`,
      ...fresh.examples.map((example) => `stale: ${example}`),
      `model check: ${model.users} users, ${model.walks} walks (${questCoverageText(model.quest)}), ${model.mismatches.length} mismatches`,
    );
    const recoveries = phases.map((phase) => phase.recoveryMs);
    return {
      recoveryMs: recoveries.includes(null) ? null : Math.max(...(recoveries as number[])),
      figure: {
        label: `reads stale more than ${STALE_AFTER_MS / 1000} s after their change and its fault cleared`,
        value: fresh.stale,
        unit: 'reads',
        target: { atMost: 0 },
      },
      checks,
      notes,
      phases,
    };
  },
};
