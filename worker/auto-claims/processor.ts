import { type Job, UnrecoverableError } from 'bullmq';
import type { CoreDeps } from '../../core/deps.js';
import { runAutoClaim } from '../../core/rewards/auto-claim.js';
import { withoutQueryParams } from '../../shared/db/query-errors.js';
import { autoClaimJobPayloads } from '../../shared/queue/auto-claim-contract.js';

/**
 * The auto-claim queue's processor (product rules §18.5): re-parses the job
 * and claims the stored reward (core/rewards/auto-claim.ts). A failure throws,
 * so BullMQ retries it; the row stays in Postgres until settled, and the
 * sweeper (./sweeper.ts) queues it again if every retry failed.
 */
export function createAutoClaimProcessor(
  deps: Pick<CoreDeps, 'db' | 'webhooks' | 'changes' | 'logger'> & Partial<Pick<CoreDeps, 'standings' | 'config'>>,
) {
  return async (job: Job): Promise<string> => {
    const parsed = autoClaimJobPayloads['auto-claim'].safeParse(job.data);
    if (job.name !== 'auto-claim' || !parsed.success) throw new UnrecoverableError(`invalid auto-claim job ${job.name}`);
    const outcome = await runAutoClaim(deps, parsed.data).catch((error: unknown) => {
      // A failed job's reason is stored in Redis and shown on the dashboard: without the statement's parameters.
      throw withoutQueryParams(error);
    });
    deps.logger.info({ jobId: job.id, autoClaimId: parsed.data.autoClaimId, ...outcome }, 'auto-claim done');
    return outcome.status;
  };
}
