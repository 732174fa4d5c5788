import { dropExpiredEvents, ensureComingEventMonthTables, retentionHorizon } from '../shared/db/event-month-tables.js';
import { startPeriodic } from './periodic.js';
import type { WorkerDeps } from './worker-deps.js';

/** How often a worker checks the partitions of events (each pass is a few catalog reads when nothing is due). */
const MONTH_TABLE_MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * One pass: the partitions of the current month and the next ones exist, and
 * with EVENT_RETENTION_MONTHS set, partitions past the horizon are dropped.
 * Every worker runs it; one advisory lock makes them take turns, and a pass
 * that finds its work done changes nothing.
 */
export async function maintainEventMonthTables(
  deps: Pick<WorkerDeps, 'db' | 'logger'>,
  input: { retentionMonths: number | undefined; now?: Date },
): Promise<{ created: string[]; dropped: string[] }> {
  const now = input.now ?? new Date();
  const created = await ensureComingEventMonthTables(deps.db, now);
  if (created.length > 0) deps.logger.info({ partitions: created }, 'created event partitions');
  if (input.retentionMonths === undefined) return { created, dropped: [] };
  const expired = await dropExpiredEvents(deps.db, { horizon: retentionHorizon(now, input.retentionMonths), dryRun: false });
  if (expired.partitions.length > 0 || expired.defaultRows > 0) {
    deps.logger.info(
      { partitions: expired.partitions, defaultRows: expired.defaultRows, horizon: expired.horizon.toISOString() },
      'dropped expired events',
    );
  }
  return { created, dropped: expired.partitions };
}

/** Runs a pass now and then every interval; a failed pass (Postgres away, a lock not granted in time) is logged and retried at the next. */
export function startMonthTableMaintenance(
  deps: Pick<WorkerDeps, 'db' | 'logger'>,
  options: { retentionMonths: number | undefined; intervalMs?: number },
) {
  return startPeriodic({
    pass: () => maintainEventMonthTables(deps, { retentionMonths: options.retentionMonths }),
    intervalMs: options.intervalMs ?? MONTH_TABLE_MAINTENANCE_INTERVAL_MS,
    immediately: true,
    logger: deps.logger,
    failure: 'event month table maintenance failed; will retry',
  });
}
