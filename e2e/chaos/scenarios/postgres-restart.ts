import { driveEvents } from '../harness/event-load.js';
import { countStatuses, deferred, noCrashes, type Scenario, sleep } from '../harness/scenario.js';

const BACK_TARGET_S = 5;

/**
 * Postgres restarted under load (`pg_ctl stop -m fast|immediate`, then
 * start): no process exits, the API answers 503 in the envelope while
 * Postgres is away and 200 again within 5 s of its return, and the workers
 * drain without a restart.
 */
function postgresRestart(mode: 'fast' | 'immediate'): Scenario {
  return {
    name: `Postgres restart, ${mode}`,
    async run(stack, ctx) {
      const load = driveEvents(stack.client, stack.history, stack.tenants[0]!, stack.random, {
        ratePerSecond: 300,
        batchSize: 20,
        batchShare: 0.5,
        resendShare: 0.03,
      });
      await sleep(ctx.pick(4_000, 10_000));
      // The suite's own connection goes first: it is not the one under test.
      await stack.disconnect();
      const downAt = Date.now();
      try {
        await stack.infra.postgres.stop(mode);
        await sleep(ctx.pick(2_000, 5_000));
      } finally {
        // Whatever happened, the next scenarios need their server back.
        await stack.infra.postgres.start();
      }
      const upAt = Date.now();
      // Single events, one after the other: the first 200 is the API's return.
      let backMs: number | null = null;
      while (backMs === null && Date.now() - upAt < 30_000) {
        const answer = await stack.client.call('GET', '/readyz', { timeoutMs: 2_000 });
        if (answer.status === 200) backMs = Date.now() - upAt;
        else await sleep(50);
      }
      await stack.reconnect();
      await sleep(ctx.pick(3_000, 10_000));
      await load.stop();
      const during = load.samples.filter((sample) => sample.at >= downAt && sample.at < upAt);
      const firstIngestOk = load.samples
        .filter((sample) => sample.at >= upAt && sample.status === 200)
        .map((sample) => sample.at + sample.ms)
        .sort((a, b) => a - b)[0];
      const wrong = during.filter((sample) => sample.status !== 200 && sample.status !== 503);
      return {
        recoveryMs: backMs,
        figure: {
          label: 'API ready (/readyz 200) after Postgres returned',
          value: backMs === null ? null : Math.round(backMs / 100) / 10,
          unit: 's',
          target: { atMost: BACK_TARGET_S },
        },
        checks: [
          noCrashes(stack),
          {
            name: 'ingest answers 503 (or 200) while Postgres is away, never a 500 or a dropped connection',
            ok: wrong.length === 0,
            detail: wrong.length ? countStatuses(wrong.map((s) => s.status)) : undefined,
          },
        ],
        notes: [
          `Postgres away ${((upAt - downAt) / 1000).toFixed(1)} s; ingest answers meanwhile: ${countStatuses(during.map((s) => s.status))}`,
          firstIngestOk === undefined
            ? 'no ingest 200 after the return'
            : `first ingest 200 ${((firstIngestOk - upAt) / 1000).toFixed(1)} s after the return`,
          ...deferred(load.deferred),
        ],
      };
    },
  };
}

export const postgresRestartFast = postgresRestart('fast');
export const postgresRestartImmediate = postgresRestart('immediate');
