import { describe, expect, it } from 'vitest';
import { listEventMonthTables } from '../shared/db/event-month-tables.js';
import { createLogger } from '../shared/observability/logger.js';
import { useTestData } from '../shared/testing/test-data.js';
import { maintainEventMonthTables } from './month-table-maintenance.js';

const { database } = useTestData('partition_maintenance', { providers: false });
const logger = createLogger({ level: 'silent', name: 'partition-maintenance-test' });
const names = async () => (await listEventMonthTables(database.db)).map((p) => p.name);

describe("the worker's partition pass", () => {
  it('creates the current month and the three after it, and keeps every partition while retention is unset', async () => {
    const before = await names();
    const pass = await maintainEventMonthTables(
      { db: database.db, logger },
      { retentionMonths: undefined, now: new Date('2031-06-15T12:00:00Z') },
    );
    expect(pass).toEqual({ created: ['events_2031_06', 'events_2031_07', 'events_2031_08', 'events_2031_09'], dropped: [] });
    expect(await names()).toEqual(expect.arrayContaining(before));
  });

  it('with EVENT_RETENTION_MONTHS drops the months entirely before the horizon, and a second pass changes nothing', async () => {
    const now = new Date('2031-09-01T00:00:00Z');
    const pass = await maintainEventMonthTables({ db: database.db, logger }, { retentionMonths: 2, now });
    // Horizon 2031-07-01: June goes (and the months the migration made, long before), July on stay.
    expect(pass.dropped).toContain('events_2031_06');
    expect(pass.created).toEqual(['events_2031_10', 'events_2031_11', 'events_2031_12']);
    expect(await names()).toEqual([
      'events_2031_07',
      'events_2031_08',
      'events_2031_09',
      'events_2031_10',
      'events_2031_11',
      'events_2031_12',
      'events_default',
    ]);
    expect(await maintainEventMonthTables({ db: database.db, logger }, { retentionMonths: 2, now })).toEqual({
      created: [],
      dropped: [],
    });
  });
});
