import type { JobsOptions } from 'bullmq';
import { z } from 'zod';

/**
 * The queue contract shared by producer (API, reconciler) and consumer
 * (worker). Jobs carry ids only: the worker reads everything else from
 * Postgres, the source of truth, so a job can be replayed at any time.
 */
export const MATCHING_QUEUE = 'matching';

export const jobPayloads = {
  'process-event': z.object({ eventId: z.uuid() }),
  'evaluate-user': z.object({ userId: z.uuid() }),
} as const;

export type JobName = keyof typeof jobPayloads;
export type JobPayload<N extends JobName> = z.infer<(typeof jobPayloads)[N]>;

/** Job ids double as dedup keys: BullMQ ignores an add whose id is still in the queue (and forbids ":" in them). */
export const jobId = {
  'process-event': (payload: JobPayload<'process-event'>) => `event-${payload.eventId}`,
  'evaluate-user': (payload: JobPayload<'evaluate-user'>) => `user-${payload.userId}`,
} satisfies { [N in JobName]: (payload: JobPayload<N>) => string };

export const defaultJobOptions: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 500 },
  // Completed jobs go at once (Postgres records the outcome); failed ones stay
  // an hour for the dashboard, after which the reconciler enqueues them anew.
  removeOnComplete: true,
  removeOnFail: { age: 3600, count: 10_000 },
};
