import type { Database } from '../shared/db/client.js';
import { type EndedWorker, endLapsedWorkers, releaseLease, renewLease } from '../shared/db/lease-store.js';
import type { Logger } from '../shared/observability/logger.js';

/** application_name of every session a worker opens: the prefix, then its id (at most 63 bytes in all). */
const WORKER_APPLICATION_PREFIX = 'qcr-worker:';
export const workerApplicationName = (workerId: string) => `${WORKER_APPLICATION_PREFIX}${workerId}`;

export interface LeaseOptions {
  workerId: string;
  leaseMs: number;
  heartbeatMs: number;
}

/**
 * Holds this worker to a lease and enforces the others'. Every heartbeat it
 * renews its own lease, then ends the sessions of any worker whose lease
 * lapsed (see endLapsedWorkers) and calls `onTakeover`, so the work those
 * sessions held (pending rows they had claimed, users they had locked) is put
 * back on the queue at once instead of at the reconciler's next pass.
 *
 * `db` should be a pool of its own: a heartbeat queued behind batches that
 * wait for locks would let a healthy worker's lease lapse.
 */
export function startLease(
  deps: { db: Database; logger: Logger; onTakeover: (ended: EndedWorker[]) => Promise<unknown> },
  options: LeaseOptions,
) {
  let running: Promise<void> | null = null;
  let stopped = false;

  async function beat(): Promise<void> {
    await renewLease(deps.db, options.workerId, options.leaseMs);
    const ended = await endLapsedWorkers(deps.db, WORKER_APPLICATION_PREFIX);
    if (ended.length === 0) return;
    deps.logger.warn({ ended }, 'ended the sessions of workers whose lease lapsed; taking their work over');
    await deps.onTakeover(ended);
  }

  const tick = () => {
    if (running || stopped) return;
    running = beat()
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'lease heartbeat failed; will retry'))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, options.heartbeatMs);
  return {
    /** The first renewal, awaited: a worker starts taking jobs only once it holds a lease. */
    start: () => renewLease(deps.db, options.workerId, options.leaseMs),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      await releaseLease(deps.db, options.workerId).catch(() => {});
    },
  };
}
