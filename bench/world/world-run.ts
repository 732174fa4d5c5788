import { and, eq, inArray, sql } from 'drizzle-orm';
import { cpuReading, cpuSecondsSince } from '../../e2e/harness/proc-stats.js';
import { createEventSource, isoMicros, type Send, type WorldEvent } from '../../e2e/support/world/event-source.js';
import { openLoop } from '../../e2e/support/world/open-loop.js';
import { PROBE_EVENT_TYPE } from '../../e2e/support/world/world-chains.js';
import { checkAgainstModel, questCoverageText, SampledHistory, sampleUsers } from '../../e2e/support/world/world-check.js';
import type { WorldOptions } from '../../e2e/support/world/world-options.js';
import type { SeededWorld } from '../../e2e/support/world/world-seed.js';
import { events, pendingEvents, users } from '../../shared/db/schema/index.js';
import { senderUserId } from '../../shared/domain/ids.js';
import { eventually } from '../../shared/testing/eventually.js';
import { nothingPending } from '../../shared/testing/progress.js';
import { seededRandom } from '../../shared/testing/random.js';
import { FLAT_BACKLOG_S, LAG_P99_BOUND_S, lagBuckets, quantileBound } from '../matching/lag.js';
import { createTraffic, type ReadFigures } from './traffic.js';
import { deploymentText, type WorldStack } from './world-stack.js';

const MAX_OUTSTANDING_SENDS = 256;
/** Registered users that only the hot-user backlog's probes send for. */
export const PROBES = 400;
export const HOT_BACKLOG = 5_000;
const HOT_SAMPLED = 10;

/** One rate held for a step's seconds, with the pollers or without, on the deployment of the moment. */
export interface Step {
  rate: number;
  achieved: number;
  dropped: number;
  /** Sends that got no 200. */
  failed: number;
  backlogGrowth: number;
  lagP99S: number;
  flat: boolean;
  /** CPU per event, microseconds: every API process together (a launcher's included), every worker together. */
  cpuPerEventUs: { api: number; worker: number; postgres: number; redis: number; generator: number };
  reads?: ReadFigures;
  /** With reads: the API processes' CPU per read answered, microseconds (the events' share included, if any). */
  apiCpuPerReadUs?: number;
}

const readsOf = (reads: ReadFigures, apiCpuS: number) => ({
  reads,
  apiCpuPerReadUs: (apiCpuS / Math.max(1, reads.answered.ok + reads.answered.notModified)) * 1e6,
});

/** Flat, and answered → matched p99 within the pipeline's bound. */
export const keptUp = (step: Step) => step.flat && step.lagP99S <= LAG_P99_BOUND_S;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type WorldRun = ReturnType<typeof openWorldRun>;

/**
 * The producers, pollers and model check of one seeded world on its stack:
 * steps at a rate, drains between them, the hot user's backlog, and the
 * check of the sampled users' progress against the pure model (§5). The
 * history of the sampled users spans every step, whatever deployment ran it.
 */
export function openWorldRun(stack: WorldStack, seeded: SeededWorld, options: WorldOptions, log: (message: string) => void) {
  const random = seededRandom(options.seed + 1);
  const source = createEventSource(random, seeded.users, options);
  const history = new SampledHistory(sampleUsers(source, seeded.users, options.sampledUsers, HOT_SAMPLED, random));
  const traffic = createTraffic(stack.client, seeded, history);

  const produce = (rate: number, durationS: number) =>
    openLoop({
      ratePerS: rate,
      durationS,
      maxOutstanding: MAX_OUTSTANDING_SENDS,
      start: (nowMs) => traffic.send(source.next(nowMs)),
    });

  /** Waits until every pending event is matched (at most `timeoutMs`), before the next measurement. */
  async function drain(timeoutMs = 600_000) {
    const started = performance.now();
    await eventually(() => nothingPending(stack.database.db), { timeoutMs, intervalMs: 250, what: 'the world backlog drained' });
    const seconds = (performance.now() - started) / 1000;
    if (seconds > 1) log(`world backlog drained in ${seconds.toFixed(1)} s`);
  }

  const deploymentLabel = () => {
    const { apis, workers } = stack.deployment;
    return apis === 1 && workers === 1 ? '' : ` (${deploymentText(stack.deployment)})`;
  };

  /**
   * `rate` events/s for `durationS` (and `pollRate` reads/s); a step that fell behind is drained (within
   * `drainTimeoutMs`) before it returns.
   */
  async function step(
    rate: number,
    pollRate: number,
    { durationS = options.stepS, drainTimeoutMs }: { durationS?: number; drainTimeoutMs?: number } = {},
  ): Promise<Step> {
    const { db } = stack.database;
    // BENCH_PG_STATEMENTS=1 (with BENCH_KEEP_DB=1): pg_stat_statements then holds the last step alone.
    if (process.env.BENCH_PG_STATEMENTS) await db.execute(sql`select pg_stat_statements_reset()`);
    const metricsUrls = stack.workerMetricsUrls();
    const workerPids = stack.workerPids();
    const backlogBefore = await db.$count(pendingEvents);
    const lagBefore = await lagBuckets(metricsUrls);
    const stopMeter = await stack.meter.start(stack.apiPids());
    const workersBefore = cpuReading(workerPids);
    // The load generator (this process) shares the cores: its CPU is part of what bounds the step.
    const generatorBefore = process.cpuUsage();
    traffic.resetReads();
    const [produced] = await Promise.all([
      produce(rate, durationS),
      pollRate > 0 ? traffic.poll(pollRate, durationS, random) : undefined,
    ]);
    const cpu = await stopMeter();
    const workerCpu = cpuSecondsSince(workersBefore, cpuReading(workerPids));
    const generatorUsage = process.cpuUsage(generatorBefore);
    const generatorCpu = (generatorUsage.user + generatorUsage.system) / 1e6;
    const backlogGrowth = (await db.$count(pendingEvents)) - backlogBefore;
    await sleep(1500);
    const { bound } = quantileBound(lagBefore, await lagBuckets(metricsUrls), 0.99);
    const achieved = produced.started / produced.seconds;
    const perEvent = (seconds: number) => (seconds / Math.max(1, produced.started)) * 1e6;
    const result: Step = {
      rate,
      achieved,
      dropped: produced.dropped,
      failed: produced.failed,
      backlogGrowth,
      lagP99S: bound,
      flat: produced.failed === 0 && produced.dropped === 0 && achieved >= rate * 0.95 && backlogGrowth <= rate * FLAT_BACKLOG_S,
      cpuPerEventUs: {
        api: perEvent(cpu.api),
        worker: perEvent(workerCpu),
        postgres: perEvent(cpu.postgres),
        redis: perEvent(cpu.redis),
        generator: perEvent(generatorCpu),
      },
      ...(pollRate > 0 ? readsOf(traffic.readFigures(pollRate), cpu.api) : {}),
    };
    log(
      `world ${rate} events/s${pollRate ? ` + ${pollRate} reads/s` : ''}${deploymentLabel()}: achieved ${Math.round(achieved)}, backlog +${backlogGrowth}, p99 <= ${bound * 1000} ms${result.reads ? `, reads p99 ${result.reads.p99Ok.toFixed(0)} / ${result.reads.p99NotModified.toFixed(0)} ms (200 / 304), ${(result.reads.notModifiedShare * 100).toFixed(1)} % 304` : ''}`,
    );
    if (!result.flat) await drain(drainTimeoutMs);
    return result;
  }

  return {
    history,
    traffic,
    step,
    /** Not measured: JIT, pools, the first batches, the answer cache, of a deployment just started. */
    async warmUp() {
      await produce(options.stepS > 5 ? 2_000 : 1_000, options.warmS);
      await drain();
    },
    /** Drains, then checks the sampled users' stored progress against the pure model; every run ends so. */
    async drainAndCheck(drainTimeoutMs?: number) {
      await drain(drainTimeoutMs);
      const check = await checkAgainstModel(stack.database.db, seeded, history);
      log(
        `world model check: ${check.users} users, ${check.walks} walks, ${history.eventCount} events, ${questCoverageText(check.quest)}; ${check.mismatches.length} mismatches${check.mismatches.length ? `: ${check.mismatches.slice(0, 5).join('; ')}` : ''}`,
      );
      return check;
    },
    hotUserBacklog: () => hotUserBacklog(stack, seeded, source.hottest(1)[0]!, traffic, produce, drain),
  };
}

/**
 * One user's 5,000 events sent at once (the hottest user's burst), beside the
 * world at 1,000 events/s and probes: each a registered user of its own that
 * sends one signup, which always changes its progress. A probe's delay is its
 * stamp (the matcher's clock at its change) minus its event's received_at.
 */
async function hotUserBacklog(
  stack: WorldStack,
  seeded: SeededWorld,
  hot: SeededWorld['users'][number],
  traffic: ReturnType<typeof createTraffic>,
  produce: (rate: number, s: number) => Promise<unknown>,
  drain: () => Promise<void>,
): Promise<number[]> {
  const nowMs = Date.now();
  // Distinct instants: 50 milliseconds of 100 microseconds each, a second before now.
  const burst: Send[] = Array.from({ length: HOT_BACKLOG / 100 }, (_, b) => ({
    platformIndex: hot.platformIndex,
    batched: true,
    events: Array.from(
      { length: 100 },
      (_, i): WorldEvent => ({
        user_id: hot.platformUserId,
        event_type: 'trade',
        amount: 20,
        currency: 'usd',
        timestamp: isoMicros(nowMs - 1000 - b, i),
      }),
    ),
  }));
  const probeIds: string[] = [];
  const probes = (async () => {
    for (const [i, userId] of seeded.probeUsers.entries()) {
      if (i >= PROBES) break;
      const answer = await traffic.send({
        platformIndex: 0,
        batched: false,
        events: [{ user_id: userId, event_type: PROBE_EVENT_TYPE, timestamp: new Date().toISOString() }],
      }).done;
      if (answer) probeIds.push(userId);
      await sleep(25);
      if (i === 40) for (const send of burst) void traffic.send(send).done;
    }
  })();
  await Promise.all([probes, produce(1_000, (PROBES * 25) / 1000)]);
  await drain();
  const rows = await stack.database.db
    .select({ changedUs: users.progressChangedAt, receivedUs: events.receivedAt })
    .from(users)
    .innerJoin(events, and(eq(events.providerId, users.platformId), eq(events.userId, users.platformUserId)))
    .where(
      and(
        eq(users.platformId, seeded.platforms[0]!.id),
        inArray(users.platformUserId, probeIds.map(senderUserId)),
        eq(events.eventType, PROBE_EVENT_TYPE),
      ),
    );
  return rows.map((row) => Number((row.changedUs ?? row.receivedUs) - row.receivedUs) / 1000);
}
