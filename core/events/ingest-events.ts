import { insertOrFindEvents } from '../../shared/db/event-store.js';
import type { SenderUserId } from '../../shared/domain/ids.js';
import type { EventRef } from '../../shared/queue/contract.js';
import type { CoreDeps } from '../deps.js';

/** An event as a provider sends it, in domain terms. */
export interface EventInput {
  /** The sender's own id of the user. */
  userId: SenderUserId;
  eventType: string;
  /** Epoch microseconds of the validated `timestamp`. */
  occurredUs: bigint;
  amount?: number | undefined;
  currency?: string | undefined;
  reference?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
}

/** One event and the provider that sent it: one call may carry several providers' events (group commit). */
export interface ProviderEvent {
  providerId: string;
  input: EventInput;
  /** X-Request-Id of the call that sent it: carried into its match job for the worker's log line. */
  requestId?: string | undefined;
}

export interface IngestedEvent {
  eventId: string;
  receivedUs: bigint;
  status: 'received' | 'duplicate';
}

/**
 * Records events (of one provider or several) and enqueues them for matching:
 * one statement and one enqueue for all of them. An event is answered once its
 * row is committed; the enqueue is best effort (the reconciler re-enqueues
 * whatever stays unprocessed). A duplicate of an unprocessed event is enqueued
 * again so a client's retry repairs a lost enqueue. Results come back in input
 * order; repeats inside one call are duplicates of the first.
 */
export async function ingestEvents(
  deps: Pick<CoreDeps, 'db' | 'producer'>,
  input: { events: readonly ProviderEvent[] },
): Promise<IngestedEvent[]> {
  if (input.events.length === 0) return [];
  const outcomes = await insertOrFindEvents(
    deps.db,
    input.events.map(({ providerId, input: event }) => ({
      providerId,
      userId: event.userId,
      eventType: event.eventType,
      occurredAt: event.occurredUs,
      amount: event.amount,
      currency: event.currency,
      reference: event.reference,
      metadata: event.metadata,
    })),
  );

  // Each event goes in its sender's job: matching takes turns between providers (docs/matching.md).
  const unprocessed = new Map<string, EventRef>();
  outcomes.forEach((outcome, i) => {
    const { providerId, requestId, input: event } = input.events[i]!;
    if (!outcome.processed && !unprocessed.has(outcome.id))
      unprocessed.set(outcome.id, { eventId: outcome.id, providerId, userId: event.userId, requestId });
  });
  await deps.producer.enqueueEvents([...unprocessed.values()]);

  const reported = new Set<string>();
  return outcomes.map((outcome) => {
    const first = !reported.has(outcome.id);
    reported.add(outcome.id);
    return { eventId: outcome.id, receivedUs: outcome.receivedAt, status: outcome.inserted && first ? 'received' : 'duplicate' };
  });
}
