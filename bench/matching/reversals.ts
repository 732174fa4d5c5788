import { sql } from 'drizzle-orm';
import { reverseEvents } from '../../core/events/reverse-events.js';
import { idArray } from '../../shared/db/sql-fragments.js';
import type { BenchContext } from '../harness/context.js';
import type { MatchingTenant } from './seed.js';

/**
 * Reverses `targets` as the drain matches them, as refunds of counted
 * purchases would come: every 100 ms, the targets matched since are reversed
 * through the use-case the API runs (each flags its user for re-evaluation
 * and enqueues it). Ends once every target is reversed.
 */
export function reverseAsMatched(ctx: BenchContext, tenant: MatchingTenant, targets: readonly string[]): () => Promise<void> {
  return async () => {
    const queues = ctx.openQueues();
    const producer = queues.matching;
    const deps = { db: ctx.database.db, producer };
    let left = [...targets];
    try {
      while (left.length > 0) {
        const rows = await ctx.database.db.execute<{ id: string }>(sql`
          select id::text from unnest(${idArray(left)}) as t(id) where not exists (select 1 from pending_events p where p.event_id = t.id)`);
        const matched = new Set(rows.map((row) => row.id));
        if (matched.size > 0) {
          await reverseEvents(deps, {
            providerId: tenant.platformId,
            reversals: [...matched].map((eventId) => ({ eventId, reason: 'bench refund' })),
          });
          left = left.filter((id) => !matched.has(id));
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await queues.close();
    }
  };
}
