import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../../shared/db/client.js';
import { pgTimestampToMicros } from '../../shared/db/timestamps.js';
import { inChainWindow } from '../../shared/domain/conditions.js';
import type { MatchTarget } from './counting-events.js';
import { chainsForTarget, evaluateChains, lockUser, type ProgressChange } from './evaluate-chains.js';

interface EventRow extends Record<string, unknown> {
  id: string;
  provider_id: string;
  provider_type: 'platform' | 'advertiser';
  user_id: string;
  event_type: string;
  occurred_us: string;
  received_at: string;
  processed: boolean;
}

export type EventOutcome =
  | { kind: 'missing' }
  | { kind: 'already-processed' }
  | { kind: 'processed'; receivedUs: bigint; changes: ProgressChange[] };

/**
 * Matches one stored event for every user it counts for, and marks it
 * processed, all in one transaction: a crash or redelivery before commit
 * leaves the event unprocessed and the job is simply run again. The event
 * row is locked first: BullMQ delivers at least once, and a second run of the
 * same job (a lapsed lock) waits here, then sees processed_at and stops.
 * "No key update" (what the final update takes anyway), not "for update":
 * other users' jobs insert completions referencing this event, and their
 * foreign-key check's key-share lock must not wait on us (a deadlock with the user locks).
 */
export async function processEvent(db: Database, eventId: string): Promise<EventOutcome> {
  return db.transaction(async (tx) => {
    const [event] = await tx.execute<EventRow>(sql`
      select e.id, e.provider_id, p.type as provider_type, e.user_id, e.event_type, e.received_at,
             (extract(epoch from e.occurred_at) * 1000000)::bigint::text as occurred_us,
             e.processed_at is not null as processed
      from events e join providers p on p.id = e.provider_id
      where e.id = ${eventId}
      for no key update of e`);
    if (!event) return { kind: 'missing' } as const;
    if (event.processed) return { kind: 'already-processed' } as const;

    const advertiserId = event.provider_type === 'advertiser' ? event.provider_id : undefined;
    const occurredUs = BigInt(event.occurred_us);
    const changes: ProgressChange[] = [];
    // Sorted so two jobs touching overlapping users always lock in the same order (no deadlock).
    for (const target of (await resolveTargets(tx, event)).sort((a, b) => (a.userId < b.userId ? -1 : 1))) {
      await lockUser(tx, target.userId);
      const chains = (await chainsForTarget(tx, target, advertiserId)).filter(
        (definition) =>
          inChainWindow(definition.rules, { occurredUs }) &&
          definition.tasks.some((task) => task.conditionEventType === event.event_type),
      );
      const change = await evaluateChains(tx, target, chains);
      if (change) changes.push(change);
    }
    await tx.execute(sql`update events set processed_at = now() where id = ${eventId}`);
    return { kind: 'processed', receivedUs: pgTimestampToMicros(event.received_at), changes } as const;
  });
}

/** The users an event counts for (§4): the platform's own user, or every user linked to the advertiser's user id. */
async function resolveTargets(tx: Executor, event: EventRow): Promise<MatchTarget[]> {
  const rows =
    event.provider_type === 'platform'
      ? await tx.execute<{ id: string; platform_id: string; platform_user_id: string }>(sql`
          select id, platform_id, platform_user_id from users
          where platform_id = ${event.provider_id} and platform_user_id = ${event.user_id}`)
      : await tx.execute<{ id: string; platform_id: string; platform_user_id: string }>(sql`
          select u.id, u.platform_id, u.platform_user_id
          from account_links l join users u on u.id = l.user_id
          where l.advertiser_id = ${event.provider_id} and l.advertiser_user_id = ${event.user_id}`);
  return rows.map((row) => ({ userId: row.id, platformId: row.platform_id, platformUserId: row.platform_user_id }));
}
