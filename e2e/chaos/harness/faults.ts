import { changesChannel } from '../../../shared/live/channel.js';
import { answerCacheServing, cutNoticeConnections } from '../../harness/notice-connections.js';
import { supervisedChild } from '../../harness/service.js';
import type { FaultLog } from './freshness.js';
import { pendingHorizon, waitForWorkUpTo } from './pending-watch.js';
import { type Check, type RunContext, sleep } from './scenario.js';
import { waitUntilInTransaction } from './sessions.js';
import type { Stack } from './stack.js';

const API_ENTRY = 'dist/api/main.js';
const WORKER_ENTRY = 'dist/worker/main.js';
// The supervisor restarts a child after 1 s; a child not back by then is not coming back.
const RESTART_TIMEOUT_MS = 30_000;
// A closed notice connection turns serving off at once, and back on within a probe's round trip once
// subscribed again: a sample of /metrics from a busy API can miss that, so it is reported, not judged
// (the cluster tests judge it; the stale reads judge what it is for).
const SERVING_OFF_BOUND_MS = 2_000;

/** What injecting a fault left to report: when it cleared (the process restarted, the server back), its checks and notes. */
interface Injected {
  clearedAt: number;
  checks: Check[];
  notes: string[];
}

/**
 * One fault of a sequence run under load on a supervised stack (`npm start`
 * as the first API). `inject` returns once the fault has cleared, recorded in
 * the fault log (a read is not judged stale until 2 s after that).
 */
export interface Fault {
  name: string;
  inject(stack: Stack, ctx: RunContext, faults: FaultLog): Promise<Injected>;
}

/** Polls `probe` every `intervalMs` until it answers something, or `timeoutMs` has passed (undefined). */
async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  intervalMs = 50,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined || Date.now() > deadline) return value;
    await sleep(intervalMs);
  }
}

// Rendering /metrics is work for the API under test: sampled to a tenth of a second, no more often.
const METRICS_SAMPLE_MS = 100;

const restartedChild = (stack: Stack, entry: string, before: number) =>
  waitFor(() => {
    const pid = supervisedChild(stack.api.pid, entry);
    return pid !== undefined && pid !== before ? pid : undefined;
  }, RESTART_TIMEOUT_MS);

function childOf(stack: Stack, entry: string): number {
  const pid = supervisedChild(stack.api.pid, entry);
  if (pid === undefined) throw new Error(`the supervisor (pid ${stack.api.pid}) runs no ${entry}`);
  return pid;
}

/** The supervisor's worker SIGKILLed inside a matching transaction; cleared once the supervisor has started another. */
export const workerSigkill: Fault = {
  name: 'worker SIGKILL',
  async inject(stack, _ctx, faults) {
    const pid = childOf(stack, WORKER_ENTRY);
    const inTransaction = await waitUntilInTransaction(stack, pid, 3_000);
    const fault = faults.begin(this.name);
    process.kill(pid, 'SIGKILL');
    const restarted = await restartedChild(stack, WORKER_ENTRY, pid);
    const clearedAt = fault.clear();
    return {
      clearedAt,
      checks: [{ name: 'the supervisor restarted the killed worker', ok: restarted !== undefined }],
      notes: [`the worker was ${inTransaction ? '' : 'not seen '}inside a transaction when killed`],
    };
  },
};

/** The supervisor's API SIGKILLed; cleared once the restarted one answers /readyz. */
export const apiSigkill: Fault = {
  name: 'API SIGKILL',
  async inject(stack, _ctx, faults) {
    const pid = childOf(stack, API_ENTRY);
    const fault = faults.begin(this.name);
    process.kill(pid, 'SIGKILL');
    const restarted = await restartedChild(stack, API_ENTRY, pid);
    const ready = await waitFor(async () => {
      const answer = await stack.client.call('GET', '/readyz', { timeoutMs: 2_000 });
      return answer.status === 200 ? true : undefined;
    }, RESTART_TIMEOUT_MS);
    const clearedAt = fault.clear();
    return {
      clearedAt,
      checks: [{ name: 'the supervisor restarted the killed API', ok: restarted !== undefined && ready === true }],
      notes: [],
    };
  },
};

/** Redis stopped (SIGTERM) and started again on its append-only file; cleared once it answers. */
export const redisRestart: Fault = {
  name: 'Redis restart',
  async inject(stack, ctx, faults) {
    const downMs = ctx.pick(2_000, 5_000);
    const fault = faults.begin(this.name);
    await stack.infra.redis.restartKeeping(downMs);
    const clearedAt = fault.clear();
    return { clearedAt, checks: [], notes: [`Redis away ${((clearedAt - fault.startAt) / 1000).toFixed(1)} s`] };
  },
};

/** On a cluster: the master owning the change-notice channel's slot failed over to its replica; cleared once the replica is master. */
export const masterFailover: Fault = {
  name: 'Redis master failover',
  async inject(stack, _ctx, faults) {
    const cluster = stack.infra.cluster;
    if (!cluster) throw new Error('a failover needs the cluster run (--cluster)');
    const fault = faults.begin(this.name);
    const { from, to } = await cluster.failover(changesChannel(stack.queuePrefix, true));
    return {
      clearedAt: fault.clear(),
      checks: [],
      notes: [`master ${from.port} of the notice channel's slot failed over to ${to.port}`],
    };
  },
};

/** Postgres crashed (`pg_ctl stop -m immediate`) and started again; cleared once it accepts connections. */
export const postgresRestart: Fault = {
  name: 'Postgres restart',
  async inject(stack, ctx, faults) {
    const downMs = ctx.pick(2_000, 5_000);
    // The suite's own connection goes first: it is not the one under test.
    await stack.disconnect();
    const fault = faults.begin(this.name);
    try {
      await stack.infra.postgres.stop('immediate');
      await sleep(downMs);
    } finally {
      // Whatever happened, the rest of the run needs its server back.
      await stack.infra.postgres.start();
    }
    const clearedAt = fault.clear();
    await stack.reconnect();
    return { clearedAt, checks: [], notes: [`Postgres away ${((clearedAt - fault.startAt) / 1000).toFixed(1)} s`] };
  },
};

/** Every API's change-notice connections killed on the Redis side (CLIENT KILL ID); the fault is the instant of the cut. */
export const noticeCut: Fault = {
  name: "API's pub/sub connection cut",
  async inject(stack, _ctx, faults) {
    const ports = stack.infra.cluster?.ports ?? [stack.infra.redis.port];
    const fault = faults.begin(this.name);
    const cut = await cutNoticeConnections(ports, stack.queuePrefix);
    const clearedAt = fault.clear();
    const offMs = await servingSeen(stack, false, clearedAt, SERVING_OFF_BOUND_MS);
    return {
      clearedAt,
      checks: [{ name: 'every API had its notice connections cut', ok: cut >= stack.apis.length, detail: `${cut} cut` }],
      notes: [
        `${cut} notice connections cut; cached answers off on every API ${offMs === null ? `not seen within ${SERVING_OFF_BOUND_MS / 1000} s` : `${(offMs / 1000).toFixed(2)} s after the cut`}`,
      ],
    };
  },
};

export interface Recovery {
  /** From the fault's clearing until both below: null when either did not happen within the timeout. */
  recoveryMs: number | null;
  /** Until every event waiting when the fault cleared was matched. */
  drainedMs: number | null;
  /** Until every API served cached answers again (its notice subscriptions proved). */
  servingMs: number | null;
}

/**
 * Milliseconds from `since` until every API has been seen with cached
 * answers served (`serving`) or not, each API from its own first such
 * sample: on a loaded machine an API may turn serving off for a moment (a
 * probe late behind a busy event loop) after it recovered, which is no
 * part of the fault's recovery. Null when not within `timeoutMs` of `since`.
 */
export async function servingSeen(stack: Stack, serving: boolean, since: number, timeoutMs: number): Promise<number | null> {
  const seenAt = new Map<string, number>();
  const all = await waitFor(
    async () => {
      await Promise.all(
        stack.apis.map(async (api) => {
          if (!seenAt.has(api.url) && (await answerCacheServing(api.url)) === serving) seenAt.set(api.url, Date.now() - since);
        }),
      );
      return seenAt.size === stack.apis.length ? Math.max(...seenAt.values()) : undefined;
    },
    timeoutMs - (Date.now() - since),
    METRICS_SAMPLE_MS,
  );
  return all ?? null;
}

/** Waits, from `clearedAt`, until what waited then is matched and every API serves cached answers again. */
export async function recovery(stack: Stack, clearedAt: number, timeoutMs: number): Promise<Recovery> {
  // Read until it answers: a failed read is not "nothing waits".
  const horizon = await waitFor(
    () =>
      pendingHorizon(stack.db()).then(
        (newest) => ({ newest }),
        () => undefined,
      ),
    timeoutMs,
  );
  if (!horizon) return { recoveryMs: null, drainedMs: null, servingMs: null };
  const [drainedMs, servingMs] = await Promise.all([
    waitForWorkUpTo(stack.db(), horizon.newest, clearedAt, timeoutMs),
    servingSeen(stack, true, clearedAt, timeoutMs),
  ]);
  return {
    recoveryMs: drainedMs === null || servingMs === null ? null : Math.max(drainedMs, servingMs),
    drainedMs,
    servingMs,
  };
}
