import type { Command } from 'commander';
import { dropExpiredEvents } from '../core/events/drop-expired-events.js';
import { listEventMonthTables } from '../shared/db/event-month-tables.js';
import { formatIsoMillis } from '../shared/domain/timestamp.js';
import { CliInputError, runCommand } from './context.js';

const iso = (us: bigint | null) => (us === null ? null : formatIsoMillis(us));

export function registerEventCommands(program: Command, json: () => boolean) {
  const events = program.command('events').description('stored events: month tables and retention');

  events
    .command('months')
    // Postgres's own word for a month table; the name the command had first.
    .alias('partitions')
    .description('list the month tables of events (Postgres partitions), oldest first, the default one last')
    .action(() =>
      runCommand(json(), async ({ db, out }) => {
        const partitions = (await listEventMonthTables(db)).map((p) => ({
          name: p.name,
          from: iso(p.fromUs),
          until: iso(p.untilUs),
        }));
        out.result(partitions, () =>
          partitions.map((p) =>
            p.from === null ? `${p.name}  (default: timestamps no month table covers)` : `${p.name}  ${p.from} .. ${p.until}`,
          ),
        );
      }),
    );

  events
    .command('drop-expired')
    .description('drop the partitions of events entirely older than the retention horizon (EVENT_RETENTION_MONTHS)')
    .option('--dry-run', 'only list what would be dropped')
    .option('--months <n>', 'months to keep before the current one (default: EVENT_RETENTION_MONTHS)')
    .action((options: { dryRun?: boolean; months?: string }) =>
      runCommand(json(), async ({ db, config, out }) => {
        let months = config.EVENT_RETENTION_MONTHS;
        if (options.months !== undefined) {
          months = Number(options.months);
          if (!Number.isInteger(months) || months < 1) throw new CliInputError('--months must be a whole number of at least 1');
        }
        const dryRun = options.dryRun === true;
        const result = await dropExpiredEvents({ db }, { months, dryRun });
        const view = {
          dry_run: dryRun,
          horizon: result.horizon.toISOString(),
          partitions: result.partitions,
          default_rows: result.defaultRows,
        };
        out.result(view, () => [
          `horizon ${view.horizon}: events before it ${dryRun ? 'would be' : 'are'} gone`,
          ...(result.partitions.length === 0
            ? ['no partition is entirely past the horizon']
            : result.partitions.map((name) => `${dryRun ? 'would drop' : 'dropped'} ${name}`)),
          `${dryRun ? 'would delete' : 'deleted'} ${result.defaultRows} row(s) of events_default`,
        ]);
      }),
    );
}
