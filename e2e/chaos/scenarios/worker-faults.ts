import { driveEvents, type LoadShape } from '../harness/event-load.js';
import { pendingHorizon, waitForWorkUpTo } from '../harness/pending-watch.js';
import { type Check, deferred, noCrashes, type Scenario, seconds, sleep } from '../harness/scenario.js';
import { sessionsOfProcess, waitUntilInTransaction } from '../harness/sessions.js';
import type { Stack } from '../harness/stack.js';

const TAKEOVER_TARGET_S = 15;
const LOAD: LoadShape = { ratePerSecond: 300, batchSize: 20, batchShare: 0.6, resendShare: 0.03 };

/**
 * Worker SIGKILL under load: the other worker must take over what the dead
 * one held (every event waiting when it died matched) within 15 s.
 */
export const workerSigkill: Scenario = {
  name: 'worker SIGKILL',
  async run(stack, ctx) {
    const load = driveEvents(stack.client, stack.history, stack.tenants[0]!, stack.random, LOAD);
    await sleep(ctx.pick(4_000, 10_000));
    const victim = stack.workers[0]!;
    const inTransaction = await waitUntilInTransaction(stack, victim.pid, 5_000);
    const horizon = await pendingHorizon(stack.db());
    const killedAt = Date.now();
    await victim.kill();
    const takeoverMs = await waitForWorkUpTo(stack.db(), horizon, killedAt, 60_000);
    await sleep(ctx.pick(3_000, 10_000));
    await load.stop();
    return {
      recoveryMs: takeoverMs,
      figure: {
        label: 'work of the killed worker matched by the other',
        value: seconds(takeoverMs),
        unit: 's',
        target: { atMost: TAKEOVER_TARGET_S },
      },
      checks: [noCrashes(stack)],
      notes: [`victim ${inTransaction ? 'was' : 'was not seen'} inside a transaction when killed`, ...deferred(load.deferred)],
    };
  },
};

/**
 * Worker SIGSTOP under load (60 s; 20 s in the short run, still past the 15 s
 * takeover target), then SIGCONT: its work must be taken over within 15 s
 * while it is stopped, and when it wakes it must not count anything twice
 * (the checker's `double`).
 */
export const workerSigstop: Scenario = {
  name: 'worker SIGSTOP',
  async run(stack, ctx) {
    const stopMs = ctx.pick(20_000, 60_000);
    const load = driveEvents(stack.client, stack.history, stack.tenants[0]!, stack.random, LOAD);
    await sleep(ctx.pick(4_000, 10_000));
    const victim = stack.workers[0]!;
    const inTransaction = await waitUntilInTransaction(stack, victim.pid, 5_000);
    const horizon = await pendingHorizon(stack.db());
    const stoppedAt = Date.now();
    victim.signal('SIGSTOP');
    const released = watchSessionsEnd(stack, victim.pid, stoppedAt, stopMs);
    const takeoverMs = await waitForWorkUpTo(stack.db(), horizon, stoppedAt, stopMs);
    await sleep(Math.max(0, stoppedAt + stopMs - Date.now()));
    const sessionsEndedMs = await released;
    victim.signal('SIGCONT');
    ctx.log(`SIGCONT after ${Math.round((Date.now() - stoppedAt) / 1000)} s`);
    await sleep(ctx.pick(5_000, 15_000));
    await load.stop();
    const checks: Check[] = [
      noCrashes(stack),
      {
        name: 'work taken over while the worker was stopped',
        ok: takeoverMs !== null,
        detail: takeoverMs === null ? `still pending after ${stopMs / 1000} s` : undefined,
      },
    ];
    const notes = [
      `victim ${inTransaction ? 'was' : 'was not seen'} inside a transaction when stopped`,
      sessionsEndedMs === null
        ? "the stopped worker's transactions stayed open all along"
        : `the stopped worker's transactions ended ${(sessionsEndedMs / 1000).toFixed(1)} s after SIGSTOP`,
      ...deferred(load.deferred),
    ];
    if (victim.exit) notes.push(`the woken worker exited (${victim.exit.code ?? victim.exit.signal}) after SIGCONT`);
    return {
      recoveryMs: takeoverMs,
      figure: {
        label: 'work of the stopped worker matched by the other',
        value: seconds(takeoverMs),
        unit: 's',
        target: { atMost: TAKEOVER_TARGET_S },
      },
      checks,
      notes,
    };
  },
};

/** Milliseconds after `since` at which the stopped process no longer holds an open transaction (null: never within `timeoutMs`). */
async function watchSessionsEnd(stack: Stack, pid: number, since: number, timeoutMs: number): Promise<number | null> {
  while (Date.now() - since < timeoutMs) {
    const sessions = await sessionsOfProcess(stack.db(), stack.databaseName, pid).catch(() => null);
    if (sessions && !sessions.some((session) => session.inTransaction)) return Date.now() - since;
    await sleep(250);
  }
  return null;
}
