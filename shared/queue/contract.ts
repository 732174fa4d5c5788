import type { JobsOptions } from 'bullmq';
import { z } from 'zod';
import { groupBy } from '../collections.js';
import { serviceUserId } from '../domain/ids.js';

/**
 * The queue contract shared by producer (API, reconciler) and consumer
 * (worker). Jobs carry ids only: the worker reads everything else from
 * Postgres, the source of truth, so a job can be replayed at any time.
 */
export const MATCHING_QUEUE = 'matching';

/** Most event ids one job carries: an ingest call's worth, so a job's queue cost is paid per call, not per event. */
export const MAX_EVENTS_PER_JOB = 500;

/**
 * Most request ids one job carries. Group commit puts many requests' events
 * in one job: the first ones are enough to find a job from an API log line
 * (and back), and the cap keeps a job of 500 events from carrying 500 ids.
 */
export const MAX_REQUEST_IDS_PER_JOB = 20;

export const jobPayloads = {
  /**
   * Match these stored events (ids of `pending_events`; ids already matched are skipped), all sent by
   * `providerId`, which the worker's batcher shares batches out by. Jobs from before fair matching have no provider id.
   * `requestIds`: the X-Request-Id of the API calls that sent them (for the worker's log line); none when the reconciler enqueued.
   */
  'match-events': z.object({
    eventIds: z.array(z.uuid()).min(1).max(MAX_EVENTS_PER_JOB),
    providerId: z.uuid().optional(),
    requestIds: z.array(z.string().max(100)).max(MAX_REQUEST_IDS_PER_JOB).optional(),
  }),
  /** Re-match every stored event of a user (registration, new link, new chain). */
  'evaluate-user': z.object({ userId: z.uuid().transform(serviceUserId) }),
  /** One event: what versions before batched matching enqueued; still consumed so an upgrade strands nothing. */
  'process-event': z.object({ eventId: z.uuid() }),
} as const;

export type JobName = keyof typeof jobPayloads;
export type JobPayload<N extends JobName> = z.infer<(typeof jobPayloads)[N]>;

/**
 * Job ids double as dedup keys: BullMQ ignores an add whose id is still in the
 * queue (and forbids ":" in them). Event batches get generated ids: a repeated
 * id is harmless there, since the matcher skips events no longer pending.
 */
export const jobId = {
  'match-events': () => undefined,
  'evaluate-user': (payload: JobPayload<'evaluate-user'>) => `user-${payload.userId}`,
  'process-event': (payload: JobPayload<'process-event'>) => `event-${payload.eventId}`,
} satisfies { [N in JobName]: (payload: JobPayload<N>) => string | undefined };

/** A stored event to match, and who sent it: what a match job is made of. */
export interface EventRef {
  eventId: string;
  providerId: string;
  /** The sender's own id of the user (platform or advertiser user id): picks the event's matching shard. */
  userId?: string | undefined;
  /** The API request that stored it, when one did. */
  requestId?: string | undefined;
}

/** Splits events into job payloads of one provider each, at most MAX_EVENTS_PER_JOB ids per job. */
export function eventBatches(events: readonly EventRef[]): JobPayload<'match-events'>[] {
  const byProvider = groupBy(events, (event) => event.providerId);
  const batches: JobPayload<'match-events'>[] = [];
  for (const [providerId, refs] of byProvider) {
    for (let i = 0; i < refs.length; i += MAX_EVENTS_PER_JOB) {
      const chunk = refs.slice(i, i + MAX_EVENTS_PER_JOB);
      const requestIds = [...new Set(chunk.flatMap((ref) => (ref.requestId ? [ref.requestId] : [])))].slice(
        0,
        MAX_REQUEST_IDS_PER_JOB,
      );
      batches.push({ eventIds: chunk.map((ref) => ref.eventId), providerId, ...(requestIds.length > 0 ? { requestIds } : {}) });
    }
  }
  return batches;
}

export const defaultJobOptions: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 500 },
  // Completed jobs go at once (Postgres records the outcome); failed ones stay
  // an hour for the dashboard, after which the reconciler enqueues them anew.
  removeOnComplete: true,
  removeOnFail: { age: 3600, count: 10_000 },
};
