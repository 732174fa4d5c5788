import { type Job, UnrecoverableError } from 'bullmq';
import { signMessage } from '../../core/webhooks/signing.js';
import {
  type AttemptOutcome,
  type AttemptRecord,
  loadForReplay,
  type OutgoingMessage,
  recordAttempt,
  recordAttempts,
  takeAttempts,
} from '../../shared/db/webhook-message-store.js';
import { dateToMicros, formatIsoMillis } from '../../shared/domain/timestamp.js';
import { retryDelayMs } from '../../shared/domain/webhooks.js';
import { webhookJobPayloads } from '../../shared/queue/webhook-contract.js';
import type { WebhookProducer } from '../../shared/queue/webhook-producer.js';
import type { WorkerDeps } from '../worker-deps.js';
import type { MatchingFirstGate } from './matching-first.js';
import { type AttemptResult, DELIVERY_TIMEOUT_MS, type Sender } from './send.js';

export interface DeliveryDeps extends Pick<WorkerDeps, 'db' | 'logger'> {
  webhooks: WebhookProducer;
  sender: Sender;
  /** WEBHOOK_RETRY_SCALE: 1 in production, smaller in tests. */
  retryScale: number;
  random?: () => number;
  /** First attempts wait for a matching backlog to clear (matching-first.ts); none: they never wait. */
  gate?: MatchingFirstGate;
}

// Longer than one attempt can take, so a live attempt's lease never lapses; a dead worker's lapses soon after.
// A group's attempts run at once, each ended by DELIVERY_TIMEOUT_MS, so a whole group fits in it too.
const LEASE_MS = DELIVERY_TIMEOUT_MS + 20_000;
/**
 * Messages of one first-attempts job claimed, sent and recorded together: one
 * claim and one record statement per group, the sends at once (the agent's
 * kept-alive sockets bound them per receiver). Statements of its own per
 * message would be most of a delivery's cost (docs/performance.md, "Webhooks").
 */
const ATTEMPT_GROUP = 50;

/**
 * Delivery jobs: scheduled attempts of messages. An attempt is claimed first
 * (takeAttempts), so the same attempt never runs twice at once, and a
 * message that moved on (delivered, replayed, endpoint deleted) is left
 * alone. Outcomes are recorded, and retries scheduled, before the job ends;
 * a crash in between leaves the messages due, for the sweeper.
 */
export function createDeliveryProcessor(deps: DeliveryDeps) {
  const random = deps.random ?? Math.random;

  async function attempt(message: OutgoingMessage): Promise<AttemptResult & { atUs: bigint }> {
    const at = new Date();
    const body = {
      id: message.id,
      type: message.type,
      created_at: formatIsoMillis(message.createdUs),
      livemode: message.livemode,
      data: message.data,
    };
    const signed = signMessage(message.secret, body, at);
    return { ...(await deps.sender.send(message.url, signed)), atUs: dateToMicros(at) };
  }

  /** Attempt number `made + 1` of each message, claimed, sent and recorded as one group; answers the count of each outcome. */
  async function scheduled(messageIds: readonly string[], made: number, outcomes: Record<string, number>): Promise<void> {
    // First attempts only (a retry keeps its schedule: the first within ~5 s, §10), before the claim, so a
    // group waiting for the matcher holds no lease.
    if (made === 0) await deps.gate?.pass();
    const messages = await takeAttempts(deps.db, messageIds, made, LEASE_MS);
    if (messages.length < messageIds.length) outcomes.skipped = (outcomes.skipped ?? 0) + messageIds.length - messages.length;
    if (messages.length === 0) return;
    const records: AttemptRecord[] = await Promise.all(
      messages.map(async (message) => {
        const result = await attempt(message);
        const delayMs = result.ok ? null : retryDelayMs(made + 1, deps.retryScale, random());
        const outcome: AttemptOutcome = result.ok
          ? { next: 'delivered' }
          : delayMs === null
            ? { next: 'failed' }
            : { next: 'retry', delayMs };
        // Never the URL (it may carry the receiver's token) nor the secret.
        deps.logger.debug(
          {
            messageId: message.id,
            attempt: made + 1,
            statusCode: result.statusCode,
            error: result.error,
            ms: result.durationMs,
            next: outcome.next,
          },
          'webhook attempt',
        );
        return { messageId: message.id, attempt: result, outcome };
      }),
    );
    await recordAttempts(deps.db, records, true);
    const retries = records.flatMap((r) =>
      r.outcome.next === 'retry' ? [{ messageId: r.messageId, attempt: made + 1, delayMs: r.outcome.delayMs }] : [],
    );
    if (retries.length > 0) await deps.webhooks.deliver(retries);
    for (const { outcome } of records) outcomes[outcome.next] = (outcomes[outcome.next] ?? 0) + 1;
  }

  async function replay(messageId: string): Promise<string> {
    const message = await loadForReplay(deps.db, messageId);
    if (!message) return 'skipped';
    const result = await attempt(message);
    await recordAttempt(deps.db, messageId, result, result.ok ? { next: 'delivered' } : { next: 'unchanged' }, false);
    deps.logger.debug(
      { messageId, replay: true, statusCode: result.statusCode, error: result.error, ms: result.durationMs },
      'webhook attempt',
    );
    return result.ok ? 'delivered' : 'replay-failed';
  }

  /** First attempts of many messages, ATTEMPT_GROUP at a time. */
  async function firstAttempts(messageIds: readonly string[]): Promise<string> {
    const outcomes: Record<string, number> = {};
    for (let i = 0; i < messageIds.length; i += ATTEMPT_GROUP)
      await scheduled(messageIds.slice(i, i + ATTEMPT_GROUP), 0, outcomes);
    return JSON.stringify(outcomes);
  }

  async function one(messageId: string, made: number): Promise<string> {
    const outcomes: Record<string, number> = {};
    await scheduled([messageId], made, outcomes);
    return Object.keys(outcomes).find((outcome) => outcomes[outcome]! > 0) ?? 'skipped';
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
      return one(parsed.data.messageId, parsed.data.attempt);
    }
    if (job.name === 'replay-webhook') {
      const parsed = webhookJobPayloads['replay-webhook'].safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError('invalid payload for replay-webhook');
      return replay(parsed.data.messageId);
    }
    throw new UnrecoverableError(`unknown job ${job.name}`);
  };
}
