import { childProcesses, supervisedChild } from '../../harness/service.js';
import { driveEvents } from '../harness/event-load.js';
import { deferred, noCrashes, type Scenario, seconds, sleep } from '../harness/scenario.js';

/**
 * The service under `npm start` (its supervisor runs one API and one
 * worker), the API SIGKILLed while 200-event batches are in flight. The
 * supervisor must restart it (after its 1 s backoff) while the worker runs
 * on untouched. Calls cut off by the kill are not acknowledged: the checker
 * requires every acknowledged event stored once, each cut-off one stored at
 * most once, and the client's retries answered with the stored event's id.
 */
export const apiSigkill: Scenario = {
  name: 'API SIGKILL during batch ingest',
  stack: () => ({ supervised: true }),
  async run(stack, ctx) {
    const supervisor = stack.api;
    const apiPid = supervisedChild(supervisor.pid, 'dist/api/main.js');
    const workerPid = supervisedChild(supervisor.pid, 'dist/worker/main.js');
    if (!apiPid || !workerPid)
      throw new Error(`the supervisor's children not found: ${JSON.stringify(childProcesses(supervisor.pid))}`);
    // Large batches, many in flight: the kill lands inside some of them.
    const load = driveEvents(stack.client, stack.history, stack.tenants[0]!, stack.random, {
      ratePerSecond: 1500,
      batchSize: 200,
      batchShare: 0.9,
      maxInFlight: 16,
    });
    await sleep(ctx.pick(3_000, 8_000));
    const before = new Set(stack.history.unacknowledged().map((event) => event.key));
    const killedAt = Date.now();
    process.kill(apiPid, 'SIGKILL');
    let backMs: number | null = null;
    while (backMs === null && Date.now() - killedAt < 30_000) {
      const answer = await stack.client.call('GET', '/readyz', { timeoutMs: 2_000 });
      if (answer.status === 200 && Date.now() - killedAt > 100) backMs = Date.now() - killedAt;
      else await sleep(50);
    }
    await sleep(ctx.pick(3_000, 8_000));
    await load.stop();
    const cutOff = stack.history.unacknowledged().filter((event) => !before.has(event.key)).length;
    const newApi = supervisedChild(supervisor.pid, 'dist/api/main.js');
    const sameWorker = supervisedChild(supervisor.pid, 'dist/worker/main.js') === workerPid;
    return {
      recoveryMs: backMs,
      figure: { label: 'events not acknowledged around the kill', value: cutOff, unit: 'events' },
      checks: [
        noCrashes(stack),
        {
          name: 'the supervisor restarted the API',
          ok: newApi !== undefined && newApi !== apiPid && backMs !== null,
          detail: `api pid ${apiPid} -> ${newApi ?? 'none'}`,
        },
        { name: 'the worker ran on untouched', ok: sameWorker, detail: sameWorker ? undefined : `worker ${workerPid} is gone` },
        {
          name: 'the kill cut off at least one call',
          ok: cutOff > 0,
          detail: cutOff > 0 ? undefined : 'no call was in flight: the scenario proved nothing',
        },
      ],
      notes: [
        `the restarted API answered /readyz ${seconds(backMs)} s after the kill (the supervisor waits 1 s first)`,
        ...deferred(load.deferred),
      ],
    };
  },
};
