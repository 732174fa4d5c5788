import { Queue } from 'bullmq';
import { addBestEffort } from './best-effort-add.js';
import type { RedisClient } from './connection.js';
import {
  deliveryJobId,
  MAX_MESSAGES_PER_JOB,
  WEBHOOK_QUEUE,
  type WebhookJobPayload,
  webhookJobOptions,
  webhookJobPayloads,
} from './webhook-contract.js';

export interface WebhookProducer {
  /** Attempts due now, or each after its `delayMs`. Best effort: false when Redis is away (the sweeper covers it). */
  deliver(attempts: readonly (WebhookJobPayload<'deliver-webhook'> & { delayMs?: number })[]): Promise<boolean>;
  /** First attempts of new messages, MAX_MESSAGES_PER_JOB a job; best effort like `deliver`. */
  deliverNew(messageIds: readonly string[]): Promise<boolean>;
  /** A replay now; false when Redis is away. */
  replay(messageId: string): Promise<boolean>;
  queue: Queue;
  close(): Promise<void>;
}

export function createWebhookProducer(connection: RedisClient, prefix: string): WebhookProducer {
  const queue = new Queue(WEBHOOK_QUEUE, { connection, prefix, defaultJobOptions: webhookJobOptions });
  queue.on('error', () => {});

  const add = (jobs: Parameters<Queue['addBulk']>[0]) => addBestEffort(connection, queue, jobs);

  return {
    deliver: (attempts) =>
      add(
        attempts.map(({ delayMs, ...payload }) => ({
          name: 'deliver-webhook',
          data: webhookJobPayloads['deliver-webhook'].parse(payload),
          opts: { jobId: deliveryJobId(payload), ...(delayMs ? { delay: delayMs } : {}) },
        })),
      ),
    deliverNew: (messageIds) => {
      const jobs = [];
      for (let i = 0; i < messageIds.length; i += MAX_MESSAGES_PER_JOB) {
        jobs.push({
          name: 'deliver-webhooks',
          data: webhookJobPayloads['deliver-webhooks'].parse({ messageIds: messageIds.slice(i, i + MAX_MESSAGES_PER_JOB) }),
        });
      }
      return add(jobs);
    },
    replay: (messageId) => add([{ name: 'replay-webhook', data: webhookJobPayloads['replay-webhook'].parse({ messageId }) }]),
    queue,
    close: () => queue.close(),
  };
}
