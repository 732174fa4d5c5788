import type { JobsOptions } from 'bullmq';
import { z } from 'zod';

/**
 * The auto-claim queue's contract (product rules §18.5): the rewards the
 * service claims itself for chains with `auto_claim`. A job carries the id of
 * an `auto_claims` row only; the row, written in the matcher's transaction,
 * is the source of truth, and the worker's sweeper queues again any row whose
 * job was lost or failed (worker/auto-claims/sweeper.ts).
 */
export const AUTO_CLAIM_QUEUE = 'auto-claims';

export const autoClaimJobPayloads = {
  'auto-claim': z.object({ autoClaimId: z.uuid() }),
} as const;

export type AutoClaimJobPayload = z.infer<(typeof autoClaimJobPayloads)['auto-claim']>;

/** One job per waiting row: the matcher's add and the sweeper's are one job while it waits. */
export const autoClaimJobId = (payload: AutoClaimJobPayload) => `auto-claim-${payload.autoClaimId}`;

/** Claims a worker makes at once (each on a connection of its own). */
export const AUTO_CLAIM_CONCURRENCY = 2;

export const autoClaimJobOptions: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  // A kept failed job would hold its id, and the sweeper's add of the same row would be ignored.
  removeOnFail: true,
};
