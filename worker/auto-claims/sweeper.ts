import { listOverdueAutoClaims } from '../../shared/db/auto-claim-store.js';
import type { AutoClaimProducer } from '../../shared/queue/auto-claim-producer.js';
import { startPeriodic } from '../periodic.js';
import type { WorkerDeps } from '../worker-deps.js';

const PAGE = 500;

/**
 * The auto-claims' safety net, as the reconciler is the events': Postgres
 * holds every reward waiting to be claimed and when it is due, so one whose
 * job never reached Redis (down at the matcher's commit), vanished with it,
 * failed every retry or ran before its reward hold ended is queued again once
 * overdue. Its job id is the row's, so one still queued is not added twice,
 * and a claim made twice finds the first (§7.2).
 */
export async function sweepAutoClaimsOnce(
  deps: Pick<WorkerDeps, 'db'> & { autoClaims: AutoClaimProducer },
  minAgeMs: number,
): Promise<number> {
  const overdue = await listOverdueAutoClaims(deps.db, BigInt(minAgeMs) * 1000n, PAGE);
  if (overdue.length === 0) return 0;
  return (await deps.autoClaims.claim(overdue)) ? overdue.length : 0;
}

export function startAutoClaimSweeper(
  deps: Pick<WorkerDeps, 'db' | 'logger'> & { autoClaims: AutoClaimProducer },
  options: { intervalMs: number; minAgeMs: number },
) {
  return startPeriodic({
    pass: async () => {
      const found = await sweepAutoClaimsOnce(deps, options.minAgeMs);
      if (found > 0) deps.logger.info({ autoClaims: found }, 'auto-claim sweeper queued overdue claims');
    },
    intervalMs: options.intervalMs,
    logger: deps.logger,
    failure: 'auto-claim sweep failed; will retry',
  });
}
