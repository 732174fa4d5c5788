import { UnrecoverableError, type Job } from 'bullmq';
import { formatIsoMillis } from '../../shared/domain/timestamp.js';
import { retryDelayMs } from '../../shared/domain/webhooks.js';
import { claimAttempt, loadForReplay, recordAttempt, type AttemptOutcome, type OutgoingMessage } from '../../shared/db/webhook-message-store.js';
import { dateToMicros } from '../../shared/domain/timestamp.js';
import { webhookJobPayloads } from '../../shared/queue/webhook-contract.js';
import type { WebhookProducer } from '../../shared/queue/webhook-producer.js';
import { signMessage } from '../../shared/webhooks/signing.js';
import type { WorkerDeps } from '../worker-deps.js';
import { DELIVERY_TIMEOUT_MS, type AttemptResult, type Sender } from './send.js';

export interface DeliveryDeps extends Pick<WorkerDeps, 'db' | 'logger'> {
  webhooks: WebhookProducer;
  sender: Sender;
  /** WEBHOOK_RETRY_SCALE: 1 in production, smaller in tests. */
  retryScale: number;
  random?: () => number;
}

// Longer than one attempt can take, so a live attempt's lease never lapses; a dead worker's lapses soon after.
const LEASE_MS = DELIVERY_TIMEOUT_MS + 20_000;
// Messages of one first-attempts job sent at once (the job's share of the worker's sockets).
const PARALLEL_PER_JOB = 16;

/**
 * One delivery job: one attempt of one message. A scheduled attempt is
 * claimed first (claimAttempt), so the same attempt never runs twice at
 * once, and a message that moved on (delivered, replayed, endpoint deleted)
 * is left alone. The outcome is recorded, and a retry scheduled, before the
 * job ends; a crash in between leaves the message due, for the sweeper.
 */
export function createDeliveryProcessor(deps: DeliveryDeps) {
  const random = deps.random ?? Math.random;

  async function attempt(message: OutgoingMessage): Promise<AttemptResult & { atUs: bigint }> {
    const at = new Date();
    const body = { id: message.id, type: message.type, created_at: formatIsoMillis(message.createdUs), livemode: message.livemode, data: message.data };
    const signed = signMessage(message.secret, body, at);
    return { ...(await deps.sender.send(message.url, signed)), atUs: dateToMicros(at) };
  }

  async function scheduled(messageId: string, made: number): Promise<string> {
    const message = await claimAttempt(deps.db, messageId, made, LEASE_MS);
    if (!message) return 'skipped';
    const result = await attempt(message);
    const delayMs = result.ok ? null : retryDelayMs(made + 1, deps.retryScale, random());
    const outcome: AttemptOutcome = result.ok ? { next: 'delivered' } : delayMs === null ? { next: 'failed' } : { next: 'retry', delayMs };
    await recordAttempt(deps.db, messageId, result, outcome, true);
    if (outcome.next === 'retry') await deps.webhooks.deliver([{ messageId, attempt: made + 1 }], outcome.delayMs);
    // Never the URL (it may carry the receiver's token) nor the secret.
    deps.logger.debug({ messageId, attempt: made + 1, statusCode: result.statusCode, error: result.error, ms: result.durationMs, next: outcome.next }, 'webhook attempt');
    return outcome.next;
  }

  async function replay(messageId: string): Promise<string> {
    const message = await loadForReplay(deps.db, messageId);
    if (!message) return 'skipped';
    const result = await attempt(message);
    await recordAttempt(deps.db, messageId, result, result.ok ? { next: 'delivered' } : { next: 'unchanged' }, false);
    deps.logger.debug({ messageId, replay: true, statusCode: result.statusCode, error: result.error, ms: result.durationMs }, 'webhook attempt');
    return result.ok ? 'delivered' : 'replay-failed';
  }

  /** First attempts of many messages, PARALLEL_PER_JOB at a time; each is claimed on its own. */
  async function firstAttempts(messageIds: readonly string[]): Promise<string> {
    const outcomes: Record<string, number> = {};
    let next = 0;
    const lane = async () => {
      while (next < messageIds.length) {
        const outcome = await scheduled(messageIds[next++]!, 0);
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_PER_JOB, messageIds.length) }, lane));
    return JSON.stringify(outcomes);
  }

  return async function process(job: Job): Promise<string> {
    if (job.name === 'deliver-webhooks') {
      const parsed = webhookJobPayloads['deliver-webhooks'].safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError('invalid payload for deliver-webhooks');
      return firstAttempts(parsed.data.messageIds);
    }
    if (job.name === 'deliver-webhook') {
      const parsed = webhookJobPayloads['deliver-webhook'].safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError('invalid payload for deliver-webhook');
      return scheduled(parsed.data.messageId, parsed.data.attempt);
    }
    if (job.name === 'replay-webhook') {
      const parsed = webhookJobPayloads['replay-webhook'].safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError('invalid payload for replay-webhook');
      return replay(parsed.data.messageId);
    }
    throw new UnrecoverableError(`unknown job ${job.name}`);
  };
}
