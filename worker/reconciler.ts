import { type PendingEventKey, type PendingEventRow, pagePendingEvents } from '../shared/db/event-store.js';
import { tryReconcileLock } from '../shared/db/progress-store.js';
import { withTransaction } from '../shared/db/transaction.js';
import { pageUsersToEvaluate } from '../shared/db/user-store.js';
import type { ServiceUserId } from '../shared/domain/ids.js';
import { MAX_EVENTS_PER_JOB } from '../shared/queue/contract.js';
import type { WorkerDeps } from './worker-deps.js';

const USER_PAGE = 500;
// A pass walks pending work in pages up to this many items: a new chain flags every user of
// its platform, and putting back only one page per interval would take hours on a large platform.
const MAX_PER_PASS = 20_000;
// Any constant; only one worker at a time collects.
const RECONCILE_LOCK_KEY = 7_215_430_982;

export interface ReconcileCounts {
  /** Pending events put back on the queue (their job was gone or had failed). */
  events: number;
  /** Flagged users whose evaluation was put back. */
  users: number;
  /** Pending events and users found whose job still waits or runs: left alone. */
  alreadyQueued: number;
}

interface PendingWork {
  events: PendingEventRow[];
  userIds: ServiceUserId[];
}

/** Reads what Postgres still marks as pending, in one short transaction that takes no Redis call. */
async function collectPending(db: WorkerDeps['db'], minAgeMs: number): Promise<PendingWork | null> {
  return withTransaction(db, async (tx) => {
    if (!(await tryReconcileLock(tx, RECONCILE_LOCK_KEY))) return null;
    const events: PendingEventRow[] = [];
    let after: PendingEventKey | null = null;
    while (events.length < MAX_PER_PASS) {
      const page = await pagePendingEvents(tx, { minAgeMs, after, limit: MAX_EVENTS_PER_JOB });
      events.push(...page);
      after = page.at(-1) ?? null;
      if (page.length < MAX_EVENTS_PER_JOB) break;
    }
    const userIds: ServiceUserId[] = [];
    let afterUser: ServiceUserId | null = null;
    while (userIds.length < MAX_PER_PASS) {
      const page = await pageUsersToEvaluate(tx, { afterId: afterUser, limit: USER_PAGE });
      userIds.push(...page);
      afterUser = page.at(-1) ?? null;
      if (page.length < USER_PAGE) break;
    }
    return { events, userIds };
  });
}

/**
 * How long the oldest job still waiting has waited (0 when none waits, or
 * Redis cannot say). A pending event younger than that plus the minimum age
 * may simply not have had its turn: its job is still in the queue. Without
 * this, every pass over a large backlog would re-add its oldest events as new
 * jobs, and the worker would match them twice over (docs/performance.md,
 * "What each change bought"). An event older than the oldest waiting job,
 * with no job left, is put back.
 */
async function queueLagMs(producer: WorkerDeps['producer']): Promise<number> {
  const since = await producer.oldestWaitingSince().catch(() => null);
  return since === null ? 0 : Math.max(0, Date.now() - since);
}

/**
 * The safety net behind "an accepted event is never lost": Postgres is the
 * source of truth, so anything it still marks as pending (a row of
 * pending_events, a user flagged for evaluation) is put back on the queue when
 * its job is gone (Redis restarted empty, enqueue failed) or failed for good.
 * The ids are collected and the transaction committed before Redis is called:
 * a slow or absent Redis must not keep a Postgres transaction (and the
 * collection lock) open. Pages of events become one job per provider whose id
 * derives from its ids, so a page still waiting in the queue is not added
 * twice; a repeat would be harmless anyway (the matcher skips events no longer
 * pending). Two workers enqueueing the same page at once is as harmless.
 */
export async function reconcileOnce(
  deps: Pick<WorkerDeps, 'db' | 'producer'>,
  input: { minAgeMs: number; ignoreQueueLag?: boolean },
): Promise<ReconcileCounts> {
  const counts: ReconcileCounts = { events: 0, users: 0, alreadyQueued: 0 };
  const lagMs = input.ignoreQueueLag ? 0 : await queueLagMs(deps.producer);
  const pending = await collectPending(deps.db, input.minAgeMs + lagMs);
  if (!pending) return counts;
  for (let i = 0; i < pending.events.length; i += MAX_EVENTS_PER_JOB) {
    const page = pending.events.slice(i, i + MAX_EVENTS_PER_JOB);
    // Each to its user's matching shard, as the API enqueued it.
    const requeued = await deps.producer.requeueEvents(
      page.map(({ eventId, providerId, userId }) => ({ eventId, providerId, userId: userId ?? undefined })),
    );
    counts.events += requeued;
    counts.alreadyQueued += page.length - requeued;
  }
  for (const id of pending.userIds) {
    if (await deps.producer.requeueUserEvaluation(id)) counts.users += 1;
    else counts.alreadyQueued += 1;
  }
  return counts;
}

export function startReconciler(
  deps: Pick<WorkerDeps, 'db' | 'producer' | 'logger'>,
  options: { intervalMs: number; minAgeMs: number; onPass?: (counts: ReconcileCounts) => void },
) {
  let running: Promise<unknown> | null = null;

  /** One pass, unless one runs already (then that one is awaited). */
  function pass(minAgeMs: number, ignoreQueueLag = false): Promise<unknown> {
    running ??= reconcileOnce(deps, { minAgeMs, ignoreQueueLag })
      .then((counts) => {
        options.onPass?.(counts);
        // What it put back, not what it found: found work whose job still waits was left alone.
        if (counts.events + counts.users > 0) deps.logger.info(counts, 'reconciler put pending work back on the queue');
      })
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'reconcile pass failed; will retry'))
      .finally(() => {
        running = null;
      });
    return running;
  }

  const timer = setInterval(() => void pass(options.minAgeMs), options.intervalMs);
  return {
    /**
     * An extra pass now, over work at least `minAgeMs` old. After another worker's sessions were ended
     * (`ignoreQueueLag`), whatever it had claimed goes back whatever waits in the queues: its partitions
     * were not consumed while it was stopped, so their backlog says nothing of the jobs it held.
     */
    async runNow(minAgeMs: number, options: { ignoreQueueLag?: boolean } = {}) {
      await running;
      await pass(minAgeMs, options.ignoreQueueLag);
    },
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
