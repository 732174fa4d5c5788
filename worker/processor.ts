import { UnrecoverableError, type Job } from 'bullmq';
import type { Database } from '../shared/db/client.js';
import type { Logger } from '../shared/observability/logger.js';
import { jobPayloads, type JobName } from '../shared/queue/contract.js';
import type { LivePublisher } from './live-publisher.js';
import { evaluateUser } from './matching/evaluate-user.js';
import { processEvent } from './matching/process-event.js';

export interface ProcessorDeps {
  db: Database;
  logger: Logger;
  publish: LivePublisher;
  /** Optional metrics hooks. */
  onEventProcessed?: (receivedUs: bigint) => void;
}

const isJobName = (name: string): name is JobName => Object.hasOwn(jobPayloads, name);

/** Routes a job to its use-case. Payloads are re-validated: one that can never be valid fails for good. */
export function createProcessor(deps: ProcessorDeps) {
  return async function process(job: Job): Promise<string> {
    if (!isJobName(job.name)) throw new UnrecoverableError(`unknown job ${job.name}`);
    const parsed = jobPayloads[job.name].safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid payload for ${job.name}`);
    const log = deps.logger.child({ jobId: job.id, job: job.name, attempt: job.attemptsMade + 1, ...parsed.data });

    if (job.name === 'process-event') {
      const { eventId } = parsed.data as { eventId: string };
      const outcome = await processEvent(deps.db, eventId);
      if (outcome.kind === 'processed') {
        await deps.publish(outcome.changes);
        deps.onEventProcessed?.(outcome.receivedUs);
      }
      log.info({ outcome: outcome.kind, changedUsers: outcome.kind === 'processed' ? outcome.changes.length : 0 }, 'event job done');
      return outcome.kind;
    }
    const { userId } = parsed.data as { userId: string };
    const change = await evaluateUser(deps.db, userId);
    if (change) await deps.publish([change]);
    log.info({ changedChains: change?.chainIds.length ?? 0 }, 'user evaluation done');
    return change ? 'changed' : 'unchanged';
  };
}
