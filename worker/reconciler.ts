import { withTransaction } from '../shared/db/transaction.js';
import { pagePendingEvents, type PendingEventKey } from '../shared/db/event-store.js';
import { tryReconcileLock } from '../shared/db/progress-store.js';
import { pageUsersToEvaluate } from '../shared/db/user-store.js';
import { MAX_EVENTS_PER_JOB } from '../shared/queue/contract.js';
import type { WorkerDeps } from './worker-deps.js';

const USER_PAGE = 500;
// A pass walks pending work in pages up to this many items: a new chain flags every user of
// its platform, and putting back only one page per interval would take hours on a large platform.
const MAX_PER_PASS = 20_000;
// Any constant; only one worker at a time reconciles.
const RECONCILE_LOCK_KEY = 7_215_430_982;

export interface ReconcileCounts {
  events: number;
  users: number;
}

/**
 * The safety net behind "an accepted event is never lost": Postgres is the
 * source of truth, so anything it still marks as pending (a row of
 * pending_events, a user flagged for evaluation) is put back on the queue when
 * its job is gone (Redis restarted empty, enqueue failed) or failed for good.
 * A page of events becomes one job whose id derives from its ids, so a page
 * still waiting in the queue is not added twice; a repeat would be harmless
 * anyway (the matcher skips events no longer pending).
 */
export async function reconcileOnce(deps: Pick<WorkerDeps, 'db' | 'producer'>, input: { minAgeMs: number }): Promise<ReconcileCounts> {
  return withTransaction(deps.db, async (tx) => {
    const counts = { events: 0, users: 0 };
    if (!(await tryReconcileLock(tx, RECONCILE_LOCK_KEY))) return counts;

    let after: PendingEventKey | null = null;
    while (counts.events < MAX_PER_PASS) {
      const page = await pagePendingEvents(tx, { minAgeMs: input.minAgeMs, after, limit: MAX_EVENTS_PER_JOB });
      if (page.length > 0) await deps.producer.requeueEvents(page.map((row) => row.eventId));
      counts.events += page.length;
      after = page.at(-1) ?? null;
      if (page.length < MAX_EVENTS_PER_JOB) break;
    }

    let afterUser: string | null = null;
    while (counts.users < MAX_PER_PASS) {
      const page = await pageUsersToEvaluate(tx, { afterId: afterUser, limit: USER_PAGE });
      for (const id of page) await deps.producer.requeueUserEvaluation(id);
      counts.users += page.length;
      afterUser = page.at(-1) ?? null;
      if (page.length < USER_PAGE) break;
    }
    return counts;
  });
}

export function startReconciler(deps: Pick<WorkerDeps, 'db' | 'producer' | 'logger'>, options: { intervalMs: number; minAgeMs: number }) {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = reconcileOnce(deps, { minAgeMs: options.minAgeMs })
      .then((counts) => {
        if (counts.events + counts.users > 0) deps.logger.info(counts, 'reconciler found pending work and put it back on the queue');
      })
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'reconcile pass failed; will retry'))
      .finally(() => {
        running = null;
      });
  }, options.intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
