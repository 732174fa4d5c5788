import { driveEvents } from '../harness/event-load.js';
import { noCrashes, sleep, type Scenario } from '../harness/scenario.js';
import { deferred, seconds } from './worker-faults.js';

/**
 * API SIGKILL while batches are being ingested, then a replacement API (what
 * `npm start`'s supervisor does). Calls cut off by the kill are not
 * acknowledged: the checker requires every acknowledged event stored once,
 * and allows each cut-off one to be stored at most once; the client's
 * retries after the restart must get the stored event's id back.
 */
export const apiSigkill: Scenario = {
  name: 'API SIGKILL during batch ingest',
  async run(stack, ctx) {
    // Large batches, many in flight: the kill lands inside some of them.
    const load = driveEvents(stack.client, stack.history, stack.tenants[0]!, stack.random, { ratePerSecond: 1500, batchSize: 200, batchShare: 0.9, maxInFlight: 16 });
    await sleep(ctx.pick(3_000, 8_000));
    const before = new Set(stack.history.unacknowledged().map((event) => event.key));
    const killedAt = Date.now();
    await stack.api.kill();
    // A supervisor restarts it (with backoff); the client keeps sending, into errors, meanwhile.
    await sleep(500);
    await stack.restartApi();
    let backMs: number | null = null;
    const deadline = Date.now() + 30_000;
    while (backMs === null && Date.now() < deadline) {
      const answer = await stack.client.call('GET', '/readyz');
      if (answer.status === 200) backMs = Date.now() - killedAt;
      else await sleep(50);
    }
    await sleep(ctx.pick(3_000, 8_000));
    await load.stop();
    const cutOff = stack.history.unacknowledged().filter((event) => !before.has(event.key)).length;
    return {
      recoveryMs: backMs,
      figure: { label: 'events not acknowledged around the kill', value: cutOff, unit: 'events' },
      checks: [noCrashes(stack), { name: 'the kill cut off at least one call', ok: cutOff > 0, detail: cutOff > 0 ? undefined : 'no call was in flight: the scenario proved nothing' }],
      notes: [`replacement API ready ${seconds(backMs)} s after the kill`, ...deferred(load.deferred)],
    };
  },
};
