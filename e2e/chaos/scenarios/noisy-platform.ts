import { quantile } from '../../../shared/testing/quantile.js';
import { driveEvents, newEvent, sendEvents } from '../harness/event-load.js';
import { pendingOf, watchMatchLatency } from '../harness/pending-watch.js';
import { noCrashes, type Scenario, seconds, sleep } from '../harness/scenario.js';

const QUIET_P99_TARGET_S = 2;

/**
 * One platform dumps a backlog (20,000 events; 5,000 in the short run) in
 * 500-event batches as fast as the API takes them, while a second platform
 * sends a few events a second. Matching must stay fair between them: the
 * quiet platform's events, sent while the backlog drains, are matched with
 * p99 <= 2 s (event sent -> its pending marker gone).
 */
export const noisyPlatform: Scenario = {
  name: 'noisy platform beside a quiet one',
  stack: () => ({ platforms: 2, usersPerPlatform: 60 }),
  drainTimeoutMs: 180_000,
  async run(stack, ctx) {
    const [noisy, quiet] = [stack.tenants[0]!, stack.tenants[1]!];
    const backlog = ctx.pick(5_000, 20_000);
    const watch = watchMatchLatency(stack.db(), stack.history, quiet.id);
    const quietLoad = driveEvents(stack.client, stack.history, quiet, stack.random, {
      ratePerSecond: 20,
      batchSize: 1,
      batchShare: 0,
    });
    await sleep(2_000);
    const floodStart = Date.now();
    let next = 0;
    const batches = Math.ceil(backlog / 500);
    // Four senders at once: the backlog arrives far faster than the workers can match it.
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < batches) {
          next += 1;
          await sendEvents(
            stack.client,
            stack.history,
            noisy,
            Array.from({ length: 500 }, () => newEvent(stack.random, noisy)),
          );
        }
      }),
    );
    const ingestedMs = Date.now() - floodStart;
    let peak = await pendingOf(stack.db(), noisy.id);
    // Measure while the backlog drains (and at most 3 minutes).
    let drainedMs: number | null = null;
    while (Date.now() - floodStart < 180_000) {
      const left = await pendingOf(stack.db(), noisy.id);
      peak = Math.max(peak, left);
      if (left === 0) {
        drainedMs = Date.now() - floodStart;
        break;
      }
      await sleep(200);
    }
    // At least 5 s of quiet traffic measured, however fast the backlog went.
    await sleep(Math.max(0, floodStart + 5_000 - Date.now()));
    const windowEnd = Date.now();
    await sleep(QUIET_P99_TARGET_S * 1000 + 1_000);
    await quietLoad.stop();
    await sleep(500);
    await watch.stop();
    const latencies = watch.latencies(floodStart, windowEnd);
    const p99 = quantile(latencies, 0.99);
    const p50 = quantile(latencies, 0.5);
    return {
      recoveryMs: drainedMs,
      // Short run: about 100 quiet events in a few seconds, so the p99 is the second-worst sample (a neighbour's
      // burst on the machine decides it); the median still shows whether quiet events wait behind the backlog.
      figure: {
        label: "quiet platform's event -> matched p99 during the backlog",
        value: Number.isFinite(p99) ? Math.round(p99 / 10) / 100 : null,
        unit: 's',
        target: { atMost: QUIET_P99_TARGET_S },
        reportedOnlyWhenShort: true,
      },
      checks: [
        noCrashes(stack),
        {
          name: 'the noisy backlog drained',
          ok: drainedMs !== null,
          detail: drainedMs === null ? 'still pending after 180 s' : undefined,
        },
        {
          name: 'quiet events were measured during the backlog',
          ok: latencies.length >= 10,
          detail: `${latencies.length} quiet events`,
        },
        {
          name: `quiet events do not wait behind the backlog (median <= ${QUIET_P99_TARGET_S} s)`,
          ok: p50 <= QUIET_P99_TARGET_S * 1000,
          detail: `median ${fmt(p50)} s`,
        },
      ],
      notes: [
        `${backlog} noisy events ingested in ${(ingestedMs / 1000).toFixed(1)} s; backlog peak seen ${peak}; drained ${seconds(drainedMs)} s after the flood began`,
        `${latencies.length} quiet events during the backlog: p50 ${fmt(p50)} s, max ${fmt(Math.max(...latencies))} s`,
      ],
    };
  },
};

const fmt = (ms: number) => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : 'unmatched');
