import { sql } from 'drizzle-orm';
import type { Database } from '../shared/db/client.js';
import type { Logger } from '../shared/observability/logger.js';
import type { MatchingProducer } from '../shared/queue/producer.js';

const BATCH = 500;
// A pass walks pending work in pages up to this many items: a new chain flags every user of
// its platform, and putting back only one page per interval would take hours on a large platform.
const MAX_PER_PASS = 20_000;
// Any constant; only one worker at a time reconciles.
const RECONCILE_LOCK_KEY = 7_215_430_982;

/**
 * The safety net behind "an accepted event is never lost": Postgres is the
 * source of truth, so anything it still marks as pending (an unprocessed
 * event, a user flagged for evaluation) is put back on the queue when its job
 * is gone (Redis restarted empty, enqueue failed) or failed for good.
 * Duplicate adds are harmless: job ids are the dedup keys. Pages are walked
 * by key, so work still waiting in the queue is not selected twice in a pass.
 */
export async function reconcileOnce(deps: { db: Database; producer: MatchingProducer }, minAgeMs: number): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const [lock] = await tx.execute<{ locked: boolean }>(sql`select pg_try_advisory_xact_lock(${RECONCILE_LOCK_KEY}) as locked`);
    if (!lock?.locked) return 0;
    let count = 0;

    let afterEvent: { receivedAt: string; id: string } | null = null;
    while (count < MAX_PER_PASS) {
      const page: { id: string; received_at: string }[] = await tx.execute<{ id: string; received_at: string }>(sql`
        select id, received_at::text as received_at from events
        where processed_at is null and received_at < now() - make_interval(secs => ${minAgeMs / 1000})
          ${afterEvent ? sql`and (received_at, id) > (${afterEvent.receivedAt}::timestamptz, ${afterEvent.id}::uuid)` : sql``}
        order by received_at, id limit ${BATCH}`);
      for (const { id } of page) await deps.producer.requeue('process-event', { eventId: id });
      count += page.length;
      const last = page.at(-1);
      if (!last || page.length < BATCH) break;
      afterEvent = { receivedAt: last.received_at, id: last.id };
    }

    let afterUser: string | null = null;
    while (count < MAX_PER_PASS) {
      const page: { id: string }[] = await tx.execute<{ id: string }>(sql`
        select id from users where needs_evaluation ${afterUser ? sql`and id > ${afterUser}::uuid` : sql``}
        order by id limit ${BATCH}`);
      for (const { id } of page) await deps.producer.requeue('evaluate-user', { userId: id });
      count += page.length;
      const last = page.at(-1);
      if (!last || page.length < BATCH) break;
      afterUser = last.id;
    }
    return count;
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
      .then((count) => {
        if (count > 0) deps.logger.info({ count }, 'reconciler re-enqueued pending work');
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
