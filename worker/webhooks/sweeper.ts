import { dueMessages } from '../../shared/db/webhook-message-store.js';
import type { WebhookProducer } from '../../shared/queue/webhook-producer.js';
import { startPeriodic } from '../periodic.js';
import type { WorkerDeps } from '../worker-deps.js';

const PAGE = 500;

/**
 * The webhooks' safety net, as the reconciler is the events': Postgres knows
 * every pending message and when its next attempt is due, so a message whose
 * job never reached Redis (down at commit), vanished with it (a restart
 * empty) or died with its worker is enqueued again once overdue. Each
 * attempt's job id is fixed (message and attempt number), so every worker may
 * sweep: an attempt still queued is not added twice, and one that ran already
 * is refused by its claim.
 */
async function sweepOnce(deps: Pick<WorkerDeps, 'db'> & { webhooks: WebhookProducer }, minAgeMs: number): Promise<number> {
  const due = await dueMessages(deps.db, minAgeMs, PAGE);
  if (due.length === 0) return 0;
  const added = await deps.webhooks.deliver(due.map((m) => ({ messageId: m.id, attempt: m.attempts })));
  return added ? due.length : 0;
}

export function startSweeper(
  deps: Pick<WorkerDeps, 'db' | 'logger'> & { webhooks: WebhookProducer },
  options: { intervalMs: number; minAgeMs: number },
) {
  return startPeriodic({
    pass: async () => {
      const found = await sweepOnce(deps, options.minAgeMs);
      if (found > 0) deps.logger.info({ messages: found }, 'webhook sweeper enqueued overdue messages');
    },
    intervalMs: options.intervalMs,
    logger: deps.logger,
    failure: 'webhook sweep failed; will retry',
  });
}
