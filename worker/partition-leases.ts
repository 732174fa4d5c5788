import { withTimeout } from '../shared/async/with-timeout.js';
import { logThrottle } from '../shared/observability/log-throttle.js';
import type { Logger } from '../shared/observability/logger.js';
import type { ConsumedPartition } from '../shared/observability/metrics.js';
import { assignPartitions } from '../shared/queue/partition-assignment.js';
import type { PartitionLeaseStore, WorkerInfo } from '../shared/queue/partition-lease-store.js';
import type { PartitionConsumption } from './partition-consumers.js';

export interface PartitionLeaseOptions {
  workerId: string;
  /** MATCHING_PARTITIONS. */
  partitions: number;
  /** PARTITION_LEASE_MS. */
  leaseMs: number;
  /** WORKER_SHARDS: consume exactly these, with no lease; null to take a share by lease. */
  pins: number[] | null;
  info: WorkerInfo;
}

interface Lease {
  token: string;
  /** Date.now() it was taken at (the Redis time, moved onto this clock). */
  since: number;
  /** performance.now() after which the lease may have run out: the last renewal's send time + leaseMs. */
  validUntil: number;
  handingOver: boolean;
}

/**
 * This worker's share of the matching partitions, kept by leases in Redis
 * (docs/scaling.md, "How partitions move"). Every tick (a third of the lease,
 * at most a second) it registers itself as live, reads the live workers,
 * computes its share (assignPartitions: every worker computes the same),
 * renews the leases it holds, tries to take those of its share it lacks, and
 * hands over those no longer its: it stops consuming the partition, waits for
 * the jobs in flight, then releases the lease, so the next holder starts
 * where it stopped. A lease it cannot renew in time (Redis away, a stall) is
 * given up before it runs out: fetching stops `marginMs` before the lease
 * could have expired, so another worker taking it over never finds it still
 * fetching. A pinned worker (WORKER_SHARDS) consumes its pins with no lease;
 * it registers them, so the leasing workers leave them out.
 */
export function startPartitionLeases(
  deps: {
    store: PartitionLeaseStore;
    logger: Logger;
    consumption: PartitionConsumption;
    /** Each lease taken, handed back or lost (the worker's metrics). */
    onChange?: (change: 'acquired' | 'released' | 'lost', partition: number) => void;
  },
  options: PartitionLeaseOptions,
) {
  const { store, logger, consumption } = deps;
  const { workerId, leaseMs } = options;
  const tickMs = Math.max(100, Math.min(1000, Math.floor(leaseMs / 3)));
  // Stop fetching this long before a lease not renewed could run out: the fence's own period and then some.
  const marginMs = Math.max(250, Math.floor(leaseMs / 6));
  const fenceMs = Math.max(50, Math.min(250, Math.floor(marginMs / 4)));
  const leases = new Map<number, Lease>();
  const pinnedSince = Date.now();
  let running: Promise<void> | null = null;
  let stopped = false;
  // Redis away fails every tick: one line per interval.
  const failures = logThrottle(10_000);

  // A release or a leave not answered soon is left to the lease's expiry: a stop never hangs on Redis.
  const settle = <T>(call: Promise<T>) => withTimeout(call, Math.max(tickMs, 1000), 'redis did not answer').catch(() => null);

  const record = (change: 'acquired' | 'released' | 'lost', partition: number, atMs: number) => {
    deps.onChange?.(change, partition);
    void store.record(change, partition, workerId, atMs).catch(() => {});
  };

  // Leases lost together (a Redis away, a stall) are logged together: one line, after the current turn.
  const lost = new Map<string, number[]>();
  const logLost = () => {
    for (const [why, partitions] of lost) logger.warn({ partitions, why }, 'partition leases lost; stopped consuming them');
    lost.clear();
  };

  /** Gives a lease up without waiting: fetching stops now; the jobs in hand finish on their own. */
  function drop(partition: number, lease: Lease, why: string) {
    if (leases.get(partition) !== lease) return;
    leases.delete(partition);
    void consumption.stop(partition);
    record('lost', partition, Date.now());
    if (lost.size === 0) setImmediate(logLost);
    lost.set(why, [...(lost.get(why) ?? []), partition]);
  }

  async function renew(partition: number, lease: Lease) {
    const sentAt = performance.now();
    const renewed = await withTimeout(store.renew(partition, lease.token, leaseMs), leaseMs, 'lease renewal timed out').catch(
      () => undefined,
    );
    if (leases.get(partition) !== lease) return;
    if (renewed === true) lease.validUntil = sentAt + leaseMs;
    // Someone else's now: it ran out (a long stall) and was taken. Stop at once.
    else if (renewed === false) drop(partition, lease, 'taken by another worker');
  }

  async function acquire(partition: number) {
    const sentAt = performance.now();
    const taken = await withTimeout(store.acquire(partition, workerId, leaseMs), leaseMs, 'lease take timed out').catch(
      () => null,
    );
    if (!taken) return false;
    if (stopped || leases.has(partition)) {
      await settle(store.release(partition, taken.token));
      return false;
    }
    leases.set(partition, {
      token: taken.token,
      since: Date.now() - taken.heldMs,
      validUntil: sentAt + leaseMs,
      handingOver: false,
    });
    consumption.start(partition);
    record('acquired', partition, taken.since);
    return true;
  }

  async function handOver(partition: number, lease: Lease) {
    lease.handingOver = true;
    // Renewed meanwhile by the ticks: the next holder can start only once the jobs in flight are done.
    await consumption.stop(partition);
    if (leases.get(partition) !== lease) return;
    leases.delete(partition);
    const at = await settle(store.release(partition, lease.token));
    record('released', partition, at ?? Date.now());
  }

  async function tick() {
    // Renewals go first and do not wait on the registry: its slot may be away while the partitions' are not.
    const renewing = Promise.all([...leases].map(([partition, lease]) => renew(partition, lease)));
    const live = await withTimeout(
      store.workers(leaseMs, { id: workerId, info: options.info }),
      Math.max(tickMs, 1000),
      'worker registry timed out',
    ).catch((error: unknown) => {
      failures.run((suppressed) =>
        logger.warn({ err: error, suppressed }, 'worker registry unavailable; keeping the partitions held'),
      );
      return null;
    });
    await renewing;
    if (live === null || options.pins !== null || stopped) return;
    const share = new Set(assignPartitions(options.partitions, live).get(workerId) ?? []);
    const missing = [...share].filter((partition) => !leases.has(partition));
    const acquired = (
      await Promise.all(missing.map(async (partition) => ((await acquire(partition)) ? [partition] : [])))
    ).flat();
    const released: number[] = [];
    for (const [partition, lease] of leases) {
      if (share.has(partition) || lease.handingOver || stopped) continue;
      released.push(partition);
      void handOver(partition, lease).catch((error: unknown) =>
        logger.warn({ err: error, partition }, 'partition handover failed'),
      );
    }
    if (acquired.length > 0 || released.length > 0)
      logger.info(
        { acquired, handingOver: released, held: leases.size, share: share.size, workers: live.length },
        'matching partitions changed',
      );
  }

  const runTick = () => {
    if (running || stopped) return running ?? Promise.resolve();
    running = tick()
      .catch((error: unknown) => {
        failures.run((suppressed) => logger.warn({ err: error, suppressed }, 'partition lease tick failed'));
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  const fence = () => {
    const now = performance.now();
    for (const [partition, lease] of leases)
      if (now >= lease.validUntil - marginMs) drop(partition, lease, 'not renewed in time');
  };

  let tickTimer: NodeJS.Timeout | undefined;
  let fenceTimer: NodeJS.Timeout | undefined;

  return {
    /** Starts the ticks; the first, awaited by the worker's start, takes its share (or its pins) before it reports started. */
    async start() {
      if (options.pins !== null) for (const partition of options.pins) consumption.start(partition);
      tickTimer = setInterval(runTick, tickMs);
      fenceTimer = setInterval(fence, fenceMs);
      await runTick();
    },
    /** What this worker consumes now, for /metrics. */
    held(): ConsumedPartition[] {
      if (options.pins !== null) return options.pins.map((partition) => ({ partition, since: pinnedSince, pinned: true }));
      return [...leases].map(([partition, lease]) => ({ partition, since: lease.since, pinned: false }));
    },
    /**
     * Leaves the registry (the others start taking its share over at once), stops consuming every
     * partition, waits for the jobs in flight, and releases its leases.
     */
    async stop() {
      stopped = true;
      clearInterval(tickTimer);
      clearInterval(fenceTimer);
      await running;
      await settle(store.leave(workerId));
      if (options.pins !== null) {
        await Promise.all(options.pins.map((partition) => consumption.stop(partition)));
        return;
      }
      await Promise.all(
        [...leases].map(async ([partition, lease]) => {
          await consumption.stop(partition);
          if (leases.get(partition) !== lease) return;
          leases.delete(partition);
          const at = await settle(store.release(partition, lease.token));
          if (at) record('released', partition, at);
        }),
      );
    },
  };
}

export type PartitionLeases = ReturnType<typeof startPartitionLeases>;
