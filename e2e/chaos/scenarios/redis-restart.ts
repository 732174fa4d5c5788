import { driveEvents } from '../harness/event-load.js';
import { pendingHorizon, waitForWorkUpTo } from '../harness/pending-watch.js';
import { countStatuses, deferred, noCrashes, type Scenario, seconds, sleep } from '../harness/scenario.js';

/**
 * Redis goes away under load and comes back, with its data (`keep`: a
 * restart of a Redis with an append-only file) or empty (`empty`: the queue,
 * the limiter counters, everything lost). Ingest must keep answering 200
 * while Redis is away (the event is safe in Postgres; the enqueue is best
 * effort), and every event waiting when Redis returns (queued before, or
 * stored while it was away and never enqueued) must be matched afterwards:
 * from the queue, or from the reconciler's sweep of pending markers.
 */
function redisRestart(mode: 'keep' | 'empty'): Scenario {
  return {
    name: mode === 'keep' ? 'Redis restart' : 'Redis restart, empty',
    async run(stack, ctx) {
      const load = driveEvents(stack.client, stack.history, stack.tenants[0]!, stack.random, {
        ratePerSecond: 300,
        batchSize: 20,
        batchShare: 0.5,
        resendShare: 0.03,
      });
      await sleep(ctx.pick(4_000, 10_000));
      const downMs = ctx.pick(2_000, 5_000);
      const downAt = Date.now();
      await (mode === 'keep' ? stack.infra.redis.restartKeeping(downMs) : stack.infra.redis.restartEmpty(downMs));
      const backAt = Date.now();
      // Waiting now: what was queued before (kept, or lost with an empty Redis) and what was stored while Redis was away (never enqueued).
      const horizon = await pendingHorizon(stack.db());
      const drainedMs = await waitForWorkUpTo(stack.db(), horizon, backAt, 60_000);
      await sleep(ctx.pick(3_000, 10_000));
      await load.stop();
      const during = load.samples.filter((sample) => sample.at >= downAt && sample.at <= backAt);
      const ok = during.filter((sample) => sample.status === 200).length;
      const share = during.length === 0 ? null : ok / during.length;
      const statuses = countStatuses(during.map((sample) => sample.status));
      return {
        recoveryMs: drainedMs,
        figure: {
          label: 'ingest calls answered 200 while Redis was away',
          value: share === null ? null : Math.round(share * 1000) / 1000,
          unit: '',
          target: { atLeast: 0.99 },
        },
        checks: [
          noCrashes(stack),
          {
            name: 'events waiting when Redis returned matched afterwards',
            ok: drainedMs !== null,
            detail: drainedMs === null ? 'still pending 60 s after Redis returned' : undefined,
          },
        ],
        notes: [
          `Redis away ${((backAt - downAt) / 1000).toFixed(1)} s; ingest answers meanwhile: ${statuses}`,
          `events waiting when Redis returned matched ${seconds(drainedMs)} s later`,
          ...deferred(load.deferred),
        ],
      };
    },
  };
}

export const redisRestartKeep = redisRestart('keep');
export const redisRestartEmpty = redisRestart('empty');
