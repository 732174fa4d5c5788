import { and, asc, eq, gt, lt, sql } from 'drizzle-orm';
import type { Database } from '../shared/db/client.js';
import { pendingEvents, users } from '../shared/db/schema/index.js';
import type { Logger } from '../shared/observability/logger.js';
import { MAX_EVENTS_PER_JOB } from '../shared/queue/contract.js';
import type { MatchingProducer } from '../shared/queue/producer.js';

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
export async function reconcileOnce(deps: { db: Database; producer: MatchingProducer }, minAgeMs: number): Promise<ReconcileCounts> {
  return deps.db.transaction(async (tx) => {
    const [lock] = await tx.execute<{ locked: boolean }>(sql`select pg_try_advisory_xact_lock(${RECONCILE_LOCK_KEY}) as locked`);
    const counts = { events: 0, users: 0 };
    if (!lock?.locked) return counts;
    const cutoff = sql`now() - make_interval(secs => ${minAgeMs / 1000})`;

    let after: { receivedAt: string; eventId: string } | null = null;
    while (counts.events < MAX_PER_PASS) {
      const page: { receivedAt: string; eventId: string }[] = await tx
        .select({ receivedAt: sql<string>`${pendingEvents.receivedAt}::text`, eventId: pendingEvents.eventId })
        .from(pendingEvents)
        .where(and(
          lt(pendingEvents.receivedAt, cutoff),
          after ? sql`(${pendingEvents.receivedAt}, ${pendingEvents.eventId}) > (${after.receivedAt}::timestamptz, ${after.eventId}::uuid)` : undefined,
        ))
        .orderBy(asc(pendingEvents.receivedAt), asc(pendingEvents.eventId))
        .limit(MAX_EVENTS_PER_JOB);
      if (page.length > 0) await deps.producer.requeueEvents(page.map((row) => row.eventId));
      counts.events += page.length;
      after = page.at(-1) ?? null;
      if (page.length < MAX_EVENTS_PER_JOB) break;
    }

    let afterUser: string | null = null;
    while (counts.users < MAX_PER_PASS) {
      const page: { id: string }[] = await tx
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.needsEvaluation, true), afterUser ? gt(users.id, afterUser) : undefined))
        .orderBy(asc(users.id))
        .limit(USER_PAGE);
      for (const { id } of page) await deps.producer.requeueUserEvaluation(id);
      counts.users += page.length;
      afterUser = page.at(-1)?.id ?? null;
      if (page.length < USER_PAGE) break;
    }
    return counts;
  });
}

export function startReconciler(
  deps: { db: Database; producer: MatchingProducer; logger: Logger },
  options: { intervalMs: number; minAgeMs: number },
) {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = reconcileOnce(deps, options.minAgeMs)
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
