import { describe, expect, it } from 'vitest';
import { ensureEventMonthTables, monthOf } from '../shared/db/event-month-tables.js';
import { insertOrFindEvents } from '../shared/db/event-store.js';
import { events } from '../shared/db/schema/index.js';
import { senderUserId } from '../shared/domain/ids.js';
import { useTestData } from '../shared/testing/test-data.js';
import { runCli } from './run-cli.test-helper.js';

const { database, platform } = useTestData('cli_events');

const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { DATABASE_URL: database.url, ...env });

describe('quest-chains events', () => {
  it('lists the partitions, oldest first, the default one last', async () => {
    const run = await cli(['--json', 'events', 'months']);
    expect(run.code, run.stderr).toBe(0);
    const partitions = JSON.parse(run.stdout) as { name: string; from: string | null; until: string | null }[];
    const now = new Date();
    const current = `events_${now.getUTCFullYear()}_${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    expect(partitions.map((p) => p.name)).toContain(current);
    expect(partitions.at(-1)).toEqual({ name: 'events_default', from: null, until: null });
  });

  it('drop-expired refuses without a retention, lists in a dry run, then drops only what is past the horizon', async () => {
    const refused = await cli(['--json', 'events', 'drop-expired']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr)).toMatchObject({ success: false, code: 'invalid_field' });

    await ensureEventMonthTables(database.db, { from: monthOf(new Date('2001-01-01T00:00:00Z')), count: 1 });
    const [old, recent] = await insertOrFindEvents(database.db, [
      {
        providerId: platform.id,
        userId: senderUserId('u'),
        eventType: 'trade',
        occurredAt: BigInt(Date.parse('2001-01-10T00:00:00Z')) * 1000n,
      },
      { providerId: platform.id, userId: senderUserId('u'), eventType: 'trade', occurredAt: BigInt(Date.now()) * 1000n },
    ]);
    const stored = async () => (await database.db.select({ id: events.id }).from(events)).map((row) => row.id).sort();

    const dry = await cli(['--json', 'events', 'drop-expired', '--dry-run', '--months', '12']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dry_run: true, partitions: ['events_2001_01'], default_rows: 0 });
    expect(await stored()).toEqual([old!.id, recent!.id].sort());

    const done = await cli(['events', 'drop-expired'], { EVENT_RETENTION_MONTHS: '12' });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('dropped events_2001_01');
    expect(await stored()).toEqual([recent!.id]);
  });
});
