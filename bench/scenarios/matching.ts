import { chainProgress, events, pendingEvents, taskCompletions } from '../../shared/db/schema/index.js';
import { vacuumAnalyze } from '../../shared/db/server-admin.js';
import type { BenchContext, Scenario } from '../harness/context.js';
import { drainBacklog, drainWith } from '../matching/drain.js';
import { lagBuckets, quantileBound } from '../matching/lag.js';
import { reverseAsMatched } from '../matching/reversals.js';
import { matchingTenant, roundRobin } from '../matching/seed.js';
import { BATCH_INGEST, SINGLE_INGEST } from './http-ingest.js';

export const MATCH_DRAIN = 'matching drain, 1 worker, 200 users';

/**
 * The matcher's figures (targets in docs/performance.md, "Micro-benchmarks
 * (200-user scenarios)"): how fast one worker drains a backlog against the
 * ingest rates of the same run, whether that depends on stored history or on
 * one user holding all the work, the CPU per event, and the delay from an
 * accepted event to its progress while events arrive at half the
 * single-ingest maximum.
 */
export const matching: Scenario = {
  name: 'matching',
  async run(ctx) {
    await backlog(ctx);
    await questLanguageBacklog(ctx);
    await reversedBacklog(ctx);
    await largeBacklog(ctx);
    await history(ctx);
    await hotUser(ctx);
    await lag(ctx);
  },
};

async function backlog(ctx: BenchContext) {
  const tenant = await matchingTenant(ctx, 'drain', 200);
  const ids = await tenant.store(roundRobin(tenant.users, ctx.options.quick ? 50 : 200));
  const figure = await drainWith(ctx, 1, tenant, ids);
  const row = {
    figure: MATCH_DRAIN,
    value: figure.eventsPerSecond,
    unit: 'events/s',
    cpuPer1k: { api: figure.workerCpuPer1k, postgres: figure.postgresCpuPer1k, redis: 0 },
    note: `${figure.events} events in ${figure.seconds.toFixed(1)} s; 5 chains × 5 tasks; CPU column: worker / PG`,
  };
  ctx.results.addRatio(row, SINGLE_INGEST, { atLeast: 1.0 });
  ctx.results.addRatio({ ...row, figure: `${MATCH_DRAIN} (vs batch ingest)` }, BATCH_INGEST, { atLeast: 0.5 });
  ctx.results.addBound(
    {
      figure: 'matching CPU per 1k events, worker + Postgres',
      value: figure.workerCpuPer1k + figure.postgresCpuPer1k,
      unit: 'CPU-s',
    },
    { atMost: 0.5 },
  );
}

/**
 * The small backlog again on chains of the quest language (counted, summed,
 * two-day streaks, daily runs, and one chain of each kind; bench/matching/seed.ts):
 * its tasks keep tallies and span many events, so each event may write a
 * tally where a plain task only advanced. The drain must stay at 0.8 of the
 * plain one (docs/quest-language.md).
 */
async function questLanguageBacklog(ctx: BenchContext) {
  const tenant = await matchingTenant(ctx, 'quest', 200, 'quest');
  const ids = await tenant.store(roundRobin(tenant.users, ctx.options.quick ? 50 : 200));
  const figure = await drainWith(ctx, 1, tenant, ids);
  const done = await tenant.completions();
  // A figure over chains nobody got through would measure nothing of the quest language.
  if (done.tasks === 0 || done.runs === 0)
    throw new Error(`quest-language drain: ${done.tasks} tasks and ${done.runs} runs completed`);
  ctx.results.addRatio(
    {
      figure: `${MATCH_DRAIN}, quest-language chains`,
      value: figure.eventsPerSecond,
      unit: 'events/s',
      cpuPer1k: { api: figure.workerCpuPer1k, postgres: figure.postgresCpuPer1k, redis: 0 },
      note: `${figure.events} events an hour apart in ${figure.seconds.toFixed(1)} s; 5 chains × 5 tasks: counted, summed, two-day streaks, daily runs, one of each; ${done.tasks} task completions, ${done.runs} chain runs completed; CPU column: worker / PG`,
    },
    MATCH_DRAIN,
    { atLeast: 0.8 },
  );
}

/**
 * The small backlog again with 5 % of its events reversed as they are
 * matched (refunds): each reversal re-evaluates its user, a full recompute
 * of their walks. The drain, re-evaluations included, must stay at 0.8 of
 * the drain without (docs/reversals.md).
 */
async function reversedBacklog(ctx: BenchContext) {
  const tenant = await matchingTenant(ctx, 'reversed', 200);
  const ids = await tenant.store(roundRobin(tenant.users, ctx.options.quick ? 50 : 200));
  const targets = ids.filter((_, i) => i % 20 === 7);
  const figure = await drainWith(ctx, 1, tenant, ids, { during: reverseAsMatched(ctx, tenant, targets) });
  ctx.results.addRatio(
    {
      figure: `${MATCH_DRAIN}, 5 % reversed`,
      value: figure.eventsPerSecond,
      unit: 'events/s',
      cpuPer1k: { api: figure.workerCpuPer1k, postgres: figure.postgresCpuPer1k, redis: 0 },
      note: `${figure.events} events (${targets.length} reversed once matched) in ${figure.seconds.toFixed(1)} s, re-evaluations included; CPU column: worker / PG`,
    },
    MATCH_DRAIN,
    { atLeast: 0.8 },
  );
}

/**
 * A backlog of 500,000 events (50,000 in a quick run), queued with the API's
 * fair tags before the worker starts and older than the reconciler's minimum
 * age by then: it must drain at the small backlog's rate. A worker once
 * stalled on exactly this (docs/performance.md, "What each change bought").
 */
async function largeBacklog(ctx: BenchContext) {
  const tenant = await matchingTenant(ctx, 'large', 200);
  const ids = await tenant.store(roundRobin(tenant.users, ctx.options.quick ? 250 : 2500));
  const figure = await drainBacklog(ctx, tenant, ids);
  ctx.results.addRatio(
    {
      figure: `matching drain, ${ids.length.toLocaleString('en-US')}-event backlog queued first`,
      value: figure.eventsPerSecond,
      unit: 'events/s',
      cpuPer1k: { api: figure.workerCpuPer1k, postgres: figure.postgresCpuPer1k, redis: 0 },
      note: `${figure.events} events in ${figure.seconds.toFixed(1)} s after the worker started; CPU column: worker / PG`,
    },
    MATCH_DRAIN,
    { atLeast: 0.8 },
  );
}

/** The same new events for users with 20 or with 2,000 stored (already matched) events each. */
async function history(ctx: BenchContext) {
  const users = ctx.options.quick ? 40 : 100;
  const fresh = ctx.options.quick ? 100 : 200;
  const rates: number[] = [];
  for (const stored of [20, 2000]) {
    const tenant = await matchingTenant(ctx, `history${stored}`, users);
    // History walks chains to task 3 and no further (types step-0..2), so new events of those types are walked, not ignored.
    await drainWith(ctx, 1, tenant, await tenant.store(roundRobin(tenant.users, stored), 3));
    // The warm-up's deletes and inserts would otherwise bring autovacuum in during the measured drain (on the same 2 cores).
    await vacuumAnalyze(ctx.database.db, [pendingEvents, events, chainProgress, taskCompletions]);
    const ids = await tenant.store(roundRobin(tenant.users, fresh, stored), 3);
    const figure = await drainWith(ctx, 1, tenant, ids);
    rates.push(figure.eventsPerSecond);
    const row = {
      figure: `matching drain, ${stored.toLocaleString('en-US')} stored events per user`,
      value: figure.eventsPerSecond,
      unit: 'events/s',
      note: `${users} users, ${fresh} new events each`,
    };
    if (stored === 20) ctx.results.add(row);
    else ctx.results.addRatio(row, 'matching drain, 20 stored events per user', { atLeast: 0.8 });
  }
}

/** 2,000 events of one user against 2,000 spread over 200 users, two workers each time. */
async function hotUser(ctx: BenchContext) {
  const spreadTenant = await matchingTenant(ctx, 'spread', 200);
  const spread = await drainWith(ctx, 2, spreadTenant, await spreadTenant.store(roundRobin(spreadTenant.users, 10)));
  ctx.results.add({
    figure: 'matching drain, 2,000 events over 200 users, 2 workers',
    value: spread.eventsPerSecond,
    unit: 'events/s',
  });
  const hotTenant = await matchingTenant(ctx, 'hot', 1);
  const hot = await drainWith(ctx, 2, hotTenant, await hotTenant.store(roundRobin(hotTenant.users, 2000)));
  ctx.results.addRatio(
    { figure: 'matching drain, 2,000 events of one user, 2 workers', value: hot.eventsPerSecond, unit: 'events/s' },
    'matching drain, 2,000 events over 200 users, 2 workers',
    { atLeast: 0.5 },
  );
}

/** Single events through the API at half the measured single-ingest maximum, one worker matching them as they come. */
async function lag(ctx: BenchContext) {
  const single = ctx.results.get(SINGLE_INGEST);
  if (!single) return;
  const rate = Math.max(1, Math.round(single.value / 2));
  const worker = await ctx.startWorker();
  try {
    const { platform, users } = ctx.world;
    let n = 0;
    const before = await lagBuckets(worker.metricsUrl);
    const load = await ctx.load({
      url: `${ctx.api.url}/v1/events`,
      method: 'POST',
      headers: platform.headers,
      overallRate: rate,
      warmupS: 0,
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({
              user_id: users[n % users.length],
              event_type: `step-${n % 3}`,
              timestamp: new Date(Date.UTC(2028, 0, 1) + n++ * 1000).toISOString(),
            }),
          }),
        },
      ],
    });
    // Let the last events of the load be matched before reading the histogram.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const { bound, count } = quantileBound(before, await lagBuckets(worker.metricsUrl), 0.99);
    ctx.results.addBound(
      {
        figure: 'event answered 200 → processed, p99',
        value: bound * 1000,
        unit: 'ms',
        note: `p99 within the histogram bucket ≤ ${bound * 1000} ms; ${count} events at ${rate} req/s (half of single ingest); ingest p99 ${load.p99Ms} ms`,
      },
      { atMost: 250 },
    );
  } finally {
    await worker.stop();
  }
}
