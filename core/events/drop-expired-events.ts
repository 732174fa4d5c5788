import { dropExpiredEvents as dropExpired, type ExpiredEvents, retentionHorizon } from '../../shared/db/event-month-tables.js';
import { invalidInput } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';

/**
 * Retention (EVENT_RETENTION_MONTHS, or `months` given by the operator): drops
 * the partitions of events whose months all lie before the horizon, and the
 * default partition's rows before it. A chain can no longer count those
 * events (docs/operations.md, "Event retention"). `dryRun` changes nothing.
 */
export async function dropExpiredEvents(
  deps: Pick<CoreDeps, 'db'>,
  input: { months: number | undefined; dryRun: boolean; now?: Date },
): Promise<ExpiredEvents> {
  if (input.months === undefined) {
    throw invalidInput(
      'EVENT_RETENTION_MONTHS is not set, so events are kept forever: set it, or name the months to keep',
      'months',
    );
  }
  if (!Number.isInteger(input.months) || input.months < 1)
    throw invalidInput('months must be a whole number of at least 1', 'months');
  return dropExpired(deps.db, { horizon: retentionHorizon(input.now ?? new Date(), input.months), dryRun: input.dryRun });
}
