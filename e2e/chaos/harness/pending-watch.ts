import { count, eq, lte, max } from 'drizzle-orm';
import type { Database } from '../../../shared/db/client.js';
import { pendingEvents } from '../../../shared/db/schema/index.js';
import { quantile } from '../../../shared/testing/quantile.js';
import type { History } from './history.js';

/** The newest `received_at` among the events waiting for the matcher right now (null: none waits). */
export async function pendingHorizon(db: Database): Promise<bigint | null> {
  const [row] = await db.select({ newest: max(pendingEvents.receivedAt) }).from(pendingEvents);
  return row?.newest ?? null;
}

/**
 * Waits until every event that was waiting at `horizon` has been matched
 * (none left with an earlier or equal `received_at`): whatever a stopped or
 * killed worker held among them has then been taken over. Returns the
 * milliseconds from `since`, or null past the timeout.
 */
export async function waitForWorkUpTo(
  db: Database,
  horizon: bigint | null,
  since: number,
  timeoutMs: number,
): Promise<number | null> {
  if (horizon === null) return 0;
  while (Date.now() - since < timeoutMs) {
    const [row] = await db
      .select({ n: count() })
      .from(pendingEvents)
      .where(lte(pendingEvents.receivedAt, horizon))
      .catch(() => [undefined]);
    if (row && row.n === 0) return Date.now() - since;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return null;
}

export async function pendingOf(db: Database, providerId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(pendingEvents).where(eq(pendingEvents.providerId, providerId));
  return row?.n ?? 0;
}

/**
 * Event → matched latency of one provider's events: polls that provider's
 * pending markers; an acknowledged event is matched by the end of the first
 * poll, started after its acknowledgement, that no longer lists it. The
 * latency runs from the client's send to that poll's end (an upper bound,
 * within one poll interval).
 */
export function watchMatchLatency(db: Database, history: History, providerId: string, intervalMs = 100) {
  const matchedAt = new Map<string, number>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const startedAt = Date.now();
      const rows = await db
        .select({ id: pendingEvents.eventId })
        .from(pendingEvents)
        .where(eq(pendingEvents.providerId, providerId))
        .catch(() => null);
      const endedAt = Date.now();
      if (rows) {
        const waiting = new Set(rows.map((row) => row.id));
        for (const event of history.events.values()) {
          if (
            event.providerId !== providerId ||
            event.ackedAt === undefined ||
            event.ackedAt > startedAt ||
            matchedAt.has(event.key)
          )
            continue;
          if (![...event.ids].some((id) => waiting.has(id))) matchedAt.set(event.key, endedAt);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  /** Latencies (ms) of the provider's acknowledged events sent in [from, to]; an unmatched one counts as `Infinity`. */
  const latencies = (from: number, to: number): number[] => {
    const values: number[] = [];
    for (const event of history.events.values()) {
      if (event.providerId !== providerId || event.ackedAt === undefined || event.sentAt < from || event.sentAt > to) continue;
      const at = matchedAt.get(event.key);
      values.push(at === undefined ? Number.POSITIVE_INFINITY : at - event.sentAt);
    }
    return values;
  };
  return {
    latencies,
    p99: (from: number, to: number) => quantile(latencies(from, to), 0.99),
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
