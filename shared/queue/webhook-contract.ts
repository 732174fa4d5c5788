import type { JobsOptions } from 'bullmq';
import { z } from 'zod';

/**
 * The webhook delivery queue's contract. Its own queue, so a slow receiver
 * never delays matching. Jobs carry a message id only (never a URL, a body
 * or a secret): the worker reads the rest from Postgres, the source of truth.
 */
export const WEBHOOK_QUEUE = 'webhooks';

const messageId = z.string().regex(/^msg_[0-9a-f]{32}$/);

/** Most messages one first-attempts job carries: a matching batch's worth, so its queue cost is paid per batch, not per message. */
export const MAX_MESSAGES_PER_JOB = 500;

export const webhookJobPayloads = {
  /** Scheduled attempt number `attempt + 1` of a message (`attempt` = the attempts made before it). */
  'deliver-webhook': z.object({ messageId, attempt: z.number().int().min(0) }),
  /**
   * The first attempts of messages just written (a matching batch's): one job
   * for many, each message still claimed on its own, so a message this job
   * shares with a sweeper's job is attempted once.
   */
  'deliver-webhooks': z.object({ messageIds: z.array(messageId).min(1).max(MAX_MESSAGES_PER_JOB) }),
  /** Send the message once more now, whatever its status (POST …/replay). */
  'replay-webhook': z.object({ messageId }),
} as const;

type WebhookJobName = keyof typeof webhookJobPayloads;
export type WebhookJobPayload<N extends WebhookJobName> = z.infer<(typeof webhookJobPayloads)[N]>;

/**
 * A scheduled attempt's job id is its message and attempt number, so the same
 * attempt enqueued twice (after commit, then by the sweeper) is one job while
 * it waits. Replays get generated ids: each is a send of its own.
 */
export const deliveryJobId = (payload: WebhookJobPayload<'deliver-webhook'>) => `${payload.messageId}.${payload.attempt}`;

export const webhookJobOptions: JobsOptions = {
  // Retries are the message's own schedule (shared/domain/webhooks.ts), kept in Postgres; a job is one attempt.
  attempts: 1,
  // Failed jobs go too: the attempt log is in Postgres, and a kept job would hold its id, so the
  // sweeper's add of the same attempt would be ignored until it expired.
  removeOnComplete: true,
  removeOnFail: true,
};
