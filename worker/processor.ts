import { type Job, UnrecoverableError } from 'bullmq';
import { ChainCache } from '../core/matching/chain-cache.js';
import { type BatchOutcome, matchBatch } from '../core/matching/match-batch.js';
import { WalkCache } from '../core/matching/walk-cache.js';
import { withoutQueryParams } from '../shared/db/query-errors.js';
import type { ServiceUserId } from '../shared/domain/ids.js';
import type { AutoClaimProducer } from '../shared/queue/auto-claim-producer.js';
import { type JobName, jobPayloads } from '../shared/queue/contract.js';
import type { WebhookProducer } from '../shared/queue/webhook-producer.js';
import { createBatcher, type MatchWork } from './matching/batcher.js';
import { createTurnstile } from './matching/turnstile.js';
import type { WorkerDeps } from './worker-deps.js';

export interface ProcessorDeps extends Pick<WorkerDeps, 'db' | 'logger' | 'publish'> {
  maxBatchSize: number;
  batchesInFlight: number;
  /** MATCH_BATCH_LINGER_MS: how long a small batch may wait for more work (batcher.ts). */
  batchLingerMs?: number;
  /** MATCH_WALKS_KEPT: walks kept between batches (core/matching/walk-cache.ts); 0 or unset keeps none. */
  walksKept?: number;
  onEventProcessed: (receivedUs: bigint) => void;
  /** Per committed batch: its users whose walks were kept from earlier batches, and those read from Postgres. */
  onWalksRead?: (kept: number, loaded: number) => void;
  /** Webhooks: who has endpoints (the outbox is skipped for the others) and the delivery queue. */
  webhooks?: { producer: WebhookProducer };
  /** The auto-claim queue (§18.5): the rewards a batch earned in auto-claim chains are claimed from there. */
  autoClaims?: { producer: AutoClaimProducer };
  /** Leaderboards: refreshes the standings of the users a batch queued (core/leaderboards/refresh-standings.ts). */
  refreshStandings?: (userIds: readonly ServiceUserId[]) => Promise<void>;
}

/** The batcher's lane for re-evaluations: they take turns with the providers' events. */
const USER_EVALUATIONS = 'user-evaluations';

const isJobName = (name: string): name is JobName => Object.hasOwn(jobPayloads, name);

/**
 * What one job asks for, in the batcher's terms; null when its payload can
 * never be valid. Each payload is parsed once, by its own schema.
 */
function workOf(name: JobName, data: unknown): (MatchWork & { requestIds?: string[] | undefined }) | null {
  switch (name) {
    case 'match-events': {
      const parsed = jobPayloads[name].safeParse(data);
      return parsed.success
        ? { eventIds: parsed.data.eventIds, userIds: [], source: parsed.data.providerId, requestIds: parsed.data.requestIds }
        : null;
    }
    case 'process-event': {
      const parsed = jobPayloads[name].safeParse(data);
      return parsed.success ? { eventIds: [parsed.data.eventId], userIds: [] } : null;
    }
    case 'evaluate-user': {
      const parsed = jobPayloads[name].safeParse(data);
      return parsed.success ? { eventIds: [], userIds: [parsed.data.userId], source: USER_EVALUATIONS } : null;
    }
  }
}

/** A batch's outcome, with the matched ids not yet reported by one of its jobs (each is reported by the first job carrying it). */
type SharedOutcome = BatchOutcome & { unreported: Set<string> };

/**
 * Routes each job's work into the batcher. A batch commits, then publishes
 * live updates (with the stamps the database stored) and records metrics
 * once; every job of it then logs its own share. Payloads are re-validated:
 * one that can never be valid fails for good.
 */
export function createProcessor(deps: ProcessorDeps) {
  const turnstile = createTurnstile();
  const walkCache = deps.walksKept ? new WalkCache(deps.walksKept) : undefined;
  const chainCache = new ChainCache();
  const batcher = createBatcher<SharedOutcome>(
    async (work) => {
      const started = performance.now();
      // Taken now, in the order batches were formed: they lock their users in that order.
      const ticket = turnstile.ticket();
      let outcome: BatchOutcome;
      try {
        outcome = await matchBatch(
          { db: deps.db, inTurn: (step) => ticket.inTurn(step), walkCache, chainCache },
          { eventIds: work.eventIds, evaluateUserIds: work.userIds },
        );
      } finally {
        ticket.release();
      }
      await deps.publish(outcome.changes);
      // Not awaited: the batch's jobs need not wait on Redis for this, and a lost add is the sweeper's.
      if (outcome.webhookMessageIds.length > 0) void deps.webhooks?.producer.deliverNew(outcome.webhookMessageIds);
      if (outcome.autoClaims.length > 0) void deps.autoClaims?.producer.claim(outcome.autoClaims);
      // Not awaited either: a refresh that fails stays queued in Postgres for the leaderboard sweeper.
      if (outcome.standingsQueued.length > 0) void deps.refreshStandings?.(outcome.standingsQueued);
      for (const event of outcome.matched) deps.onEventProcessed(event.receivedUs);
      deps.onWalksRead?.(outcome.walksReused, outcome.walksLoaded);
      deps.logger.debug(
        {
          events: work.eventIds.length,
          matched: outcome.matched.length,
          users: work.userIds.length,
          recomputed: outcome.recomputed,
          absorbed: outcome.absorbed,
          changedUsers: outcome.changes.length,
          walksReused: outcome.walksReused,
          walksLoaded: outcome.walksLoaded,
          ms: Math.round(performance.now() - started),
        },
        'batch committed',
      );
      return { ...outcome, unreported: new Set(outcome.matched.map((e) => e.id)) };
    },
    { maxBatchSize: deps.maxBatchSize, inFlight: deps.batchesInFlight, lingerMs: deps.batchLingerMs },
  );

  return async function process(job: Job): Promise<string> {
    if (!isJobName(job.name)) throw new UnrecoverableError(`unknown job ${job.name}`);
    const work = workOf(job.name, job.data);
    if (work === null) throw new UnrecoverableError(`invalid payload for ${job.name}`);
    // A failed job's reason is stored in Redis and shown on the dashboard: without the statement's parameters.
    const outcome = await batcher.submit(work).catch((error: unknown) => {
      throw withoutQueryParams(error);
    });
    const log = deps.logger.child({ jobId: job.id, job: job.name, attempt: job.attemptsMade + 1 });
    if (work.userIds.length > 0) {
      const changed = outcome.changes.some((c) => work.userIds.includes(c.userId));
      log.info(
        { userId: work.userIds[0], evaluated: outcome.evaluated.includes(work.userIds[0]!), changed },
        'user evaluation done',
      );
      return changed ? 'changed' : 'unchanged';
    }
    const matched: string[] = [];
    const skipped: string[] = [];
    // Skipped: matched before (a redelivery, a reconciler repeat) or by another worker's batch right now.
    for (const id of work.eventIds) (outcome.unreported.delete(id) ? matched : skipped).push(id);
    // requestIds: the API calls that stored these events (X-Request-Id), so one event can be followed from its request to its match.
    log.info({ matched, skipped, requestIds: work.requestIds ?? [] }, 'event job done');
    return matched.length > 0 ? 'matched' : 'skipped';
  };
}
