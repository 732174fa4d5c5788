import { eq, inArray, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { senderUserId } from '../domain/ids.js';
import { useTestData } from '../testing/test-data.js';
import type { Database } from './client.js';
import {
  dropExpiredEvents,
  ensureEventMonthTables,
  listEventMonthTables,
  monthOf,
  monthTableName,
} from './event-month-tables.js';
import { insertOrFindEvents, loadHistory, takePendingEvents } from './event-store.js';
import * as schema from './schema/index.js';
import { withTransaction } from './transaction.js';

const { database, platform } = useTestData('event-partitions');

const us = (iso: string) => BigInt(Date.parse(iso)) * 1000n;

/** Events the matcher has processed: their pending rows gone, as a batch's commit leaves them. */
async function processed(stored: readonly { id: string }[]): Promise<void> {
  await database.db.delete(schema.pendingEvents).where(
    inArray(
      schema.pendingEvents.eventId,
      stored.map((e) => e.id),
    ),
  );
}
const JAN = monthOf(new Date('2031-01-01T00:00:00Z'));

/**
 * A client whose statements are recorded as sent (text and parameters), so the
 * test explains the data module's actual statements, not copies of them.
 */
interface Recorded {
  query: string;
  params: unknown[];
}
let recorded: Recorded[] = [];
let client: postgres.Sql;
let logged: Database;

beforeAll(async () => {
  client = postgres(database.url, { max: 2, onnotice: () => {}, connection: { TimeZone: 'UTC' } });
  logged = drizzle(client, {
    schema,
    logger: { logQuery: (query, params) => void recorded.push({ query, params }) },
  }) as unknown as Database;
  // 2031-01, -02 and -03, far from the months the migration made.
  await ensureEventMonthTables(database.db, { from: JAN, count: 3 });
});

afterAll(async () => {
  await client.end();
});

async function record<T>(fn: (db: Database) => Promise<T>): Promise<{ value: T; statements: Recorded[] }> {
  recorded = [];
  const value = await fn(logged);
  return { value, statements: recorded };
}

interface PlanNode {
  'Relation Name'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/**
 * The partitions of events a statement reads: with `analyze`, the scans that
 * actually ran (inside a rolled-back transaction, so nothing it writes stays);
 * without, every scan the plan contains (what plan-time pruning left).
 */
async function eventPartitionsRead(statement: Recorded, analyze: boolean): Promise<string[]> {
  const options = analyze ? '(analyze, costs off, timing off, format json)' : '(costs off, format json)';
  let plan: PlanNode | undefined;
  await client
    .begin(async (tx) => {
      const [row] = await tx.unsafe(`explain ${options} ${statement.query}`, statement.params as never[]);
      plan = (row!['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan;
      throw new Error('rollback');
    })
    .catch((error: unknown) => {
      if ((error as Error).message !== 'rollback') throw error;
    });
  const names = new Set<string>();
  const visit = (node: PlanNode) => {
    const ran = !analyze || (node['Actual Loops'] ?? 0) > 0;
    if (ran && node['Relation Name']?.startsWith('events_')) names.add(node['Relation Name']);
    node.Plans?.forEach(visit);
  };
  visit(plan!);
  return [...names].sort();
}

/** The index scans of events partitions in a statement's plan, with their conditions. */
async function indexScansOfEvents(statement: Recorded): Promise<{ 'Index Cond'?: string; Filter?: string }[]> {
  const [row] = await client.unsafe(`explain (costs off, format json) ${statement.query}`, statement.params as never[]);
  const scans: { 'Index Cond'?: string; Filter?: string }[] = [];
  const visit = (node: PlanNode & { 'Node Type'?: string; 'Index Cond'?: string; Filter?: string }) => {
    if (node['Node Type'] === 'Index Scan' && node['Relation Name']?.startsWith('events_')) scans.push(node);
    node.Plans?.forEach(visit);
  };
  visit((row!['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan);
  return scans;
}

const event = (userId: string, iso: string) => ({
  providerId: platform.id,
  userId: senderUserId(userId),
  eventType: 'trade',
  occurredAt: us(iso),
});

describe('partitioned events', () => {
  it("new events are inserted without reading events; stored ones are looked up in the same statement, in their month's partition only (plan-time pruning)", async () => {
    // Recorded in a rolled-back transaction, so its event is still new when the statement is explained.
    const fresh = await record((db) =>
      db
        .transaction(async (tx) => {
          await insertOrFindEvents(tx, [event('fresh', '2031-02-10T00:00:00Z')]);
          tx.rollback();
        })
        .catch(() => undefined),
    );
    const insert = fresh.statements.filter((s) => s.query.includes('insert into events'));
    expect(insert).toHaveLength(1);
    expect(await eventPartitionsRead(insert[0]!, true)).toEqual([]);
    await insertOrFindEvents(database.db, [event('dedup', '2031-02-10T00:00:00Z')]);

    const { value, statements } = await record((db) =>
      insertOrFindEvents(db, [event('dedup', '2031-02-10T00:00:00Z'), event('dedup', '2031-02-11T00:00:00Z')]),
    );
    expect(value.map((o) => o.inserted)).toEqual([false, true]);
    expect(statements).toHaveLength(1);
    expect(await eventPartitionsRead(statements[0]!, false)).toEqual(['events_2031_02']);
    expect(await eventPartitionsRead(statements[0]!, true)).toEqual(['events_2031_02']);

    // Stored events of months apart: those months only, not the ones between.
    const apartEvents = [event('dedup', '2031-01-10T00:00:00Z'), event('dedup', '2031-03-10T00:00:00Z')];
    await insertOrFindEvents(database.db, apartEvents);
    const apart = await record((db) => insertOrFindEvents(db, apartEvents));
    expect(await eventPartitionsRead(apart.statements[0]!, false)).toEqual(['events_2031_01', 'events_2031_03']);
  });

  it("the matcher's claim reads only the partitions of the claimed events (run-time pruning)", async () => {
    const stored = await insertOrFindEvents(database.db, [
      event('claim', '2031-01-05T00:00:00Z'),
      event('claim', '2031-03-05T00:00:00Z'),
    ]);
    const march = stored[1]!.id;
    const { value, statements } = await record((db) => withTransaction(db, (tx) => takePendingEvents(tx, [march])));
    expect(value.map((e) => e.id)).toEqual([march]);
    expect(await eventPartitionsRead(statements.find((s) => s.query.includes('pending_events'))!, true)).toEqual([
      'events_2031_03',
    ]);

    // A full batch too: planned as one lookup per event, not as a join reading every partition.
    const many = await insertOrFindEvents(
      database.db,
      Array.from({ length: 1000 }, (_, i) => event(`batch-${i}`, '2031-03-06T00:00:00Z')),
    );
    await insertOrFindEvents(
      database.db,
      Array.from({ length: 1000 }, (_, i) => event(`other-${i}`, '2031-02-06T00:00:00Z')),
    );
    const batch = await record((db) =>
      withTransaction(db, (tx) =>
        takePendingEvents(
          tx,
          many.map((e) => e.id),
        ),
      ),
    );
    expect(batch.value).toHaveLength(1000);
    expect(await eventPartitionsRead(batch.statements.find((s) => s.query.includes('pending_events'))!, true)).toEqual([
      'events_2031_03',
    ]);
  });

  it("the matcher's history read reads only the partitions of the chains' window", async () => {
    await processed(
      await insertOrFindEvents(database.db, [event('history', '2031-01-20T00:00:00Z'), event('history', '2031-02-20T00:00:00Z')]),
    );
    const { value, statements } = await record((db) =>
      loadHistory(
        db,
        [{ providerId: platform.id, userId: senderUserId('history') }],
        ['trade'],
        { fromUs: us('2031-02-01T00:00:00Z'), untilUs: us('2031-03-01T00:00:00Z') },
        [],
      ),
    );
    expect(value.map((e) => e.occurredUs)).toEqual([us('2031-02-20T00:00:00Z')]);
    expect(await eventPartitionsRead(statements[0]!, false)).toEqual(['events_2031_02']);
  });

  it("the history read of a busy user takes one index range per type and window, not the user's whole range", async () => {
    // 2,000 events of one user over two types in February: a redo reads an hour of one type.
    const busy = Array.from({ length: 2000 }, (_, i) => ({
      ...event('busy', new Date(Date.parse('2031-02-01T00:00:00Z') + i * 600_000).toISOString()),
      eventType: i % 2 === 0 ? 'trade' : 'login',
    }));
    await processed(await insertOrFindEvents(database.db, busy));
    await database.db.execute(sql`analyze events`);
    const { value, statements } = await record((db) =>
      loadHistory(
        db,
        [
          {
            providerId: platform.id,
            userId: senderUserId('busy'),
            fromUs: us('2031-02-05T00:00:00Z'),
            untilUs: us('2031-02-05T01:00:00Z'),
          },
        ],
        ['trade'],
        {
          fromUs: us('2031-02-01T00:00:00Z'),
          untilUs: us('2031-03-01T00:00:00Z'),
        },
        [],
      ),
    );
    expect(value).toHaveLength(3);
    const scans = await indexScansOfEvents(statements[0]!);
    expect(scans.length).toBeGreaterThan(0);
    // The type and the source's window bound the range itself (as index conditions, not filters over every entry of the user).
    for (const scan of scans) expect(scan['Index Cond']).toMatch(/event_type = s\.event_type/);
  });

  it("reads each type of a sender over that type's own span, not every type over the widest", async () => {
    // Every ten minutes of 2031-03-01, alternately 'trade' and 'login': a day-long read of 'trade' beside an hour of 'login'.
    const day = Array.from({ length: 144 }, (_, i) => ({
      ...event('spans', new Date(Date.parse('2031-03-01T00:00:00Z') + i * 600_000).toISOString()),
      eventType: i % 2 === 0 ? 'trade' : 'login',
    }));
    await processed(await insertOrFindEvents(database.db, day));
    const sender = { providerId: platform.id, userId: senderUserId('spans') };
    const read = await loadHistory(
      database.db,
      [
        { ...sender, eventType: 'trade', fromUs: us('2031-03-01T00:00:00Z'), untilUs: us('2031-03-02T00:00:00Z') },
        { ...sender, eventType: 'login', fromUs: us('2031-03-01T12:00:00Z'), untilUs: us('2031-03-01T13:00:00Z') },
      ],
      ['trade', 'login'],
      { fromUs: us('2031-03-01T00:00:00Z'), untilUs: us('2031-03-02T00:00:00Z') },
      [],
    );
    const count = (type: string) => read.filter((e) => e.eventType === type).length;
    expect({ trade: count('trade'), login: count('login') }).toEqual({ trade: 72, login: 3 });
    expect(new Set(read.map((e) => e.id)).size).toBe(read.length);
  });

  it("the matcher's history read leaves out events another batch has yet to walk, and reads the batch's own", async () => {
    // Three events of one sender: one processed, one this batch claimed, one still waiting for a batch of its own.
    const [done, claimed, waiting] = await insertOrFindEvents(database.db, [
      event('pending', '2031-04-01T00:00:00Z'),
      event('pending', '2031-04-02T00:00:00Z'),
      event('pending', '2031-04-03T00:00:00Z'),
    ]);
    await processed([done!]);
    const sources = [{ providerId: platform.id, userId: senderUserId('pending') }];
    const april = { fromUs: us('2031-04-01T00:00:00Z'), untilUs: us('2031-05-01T00:00:00Z') };
    const read = async (claimedIds: readonly string[] | null) =>
      (await loadHistory(database.db, sources, ['trade'], april, claimedIds)).map((e) => e.id).sort();
    expect(await read([claimed!.id])).toEqual([done!.id, claimed!.id].sort());
    expect(await read([])).toEqual([done!.id]);
    // A backtest reads every stored event.
    expect(await read(null)).toEqual([done!.id, claimed!.id, waiting!.id].sort());
  });

  it('creates partitions idempotently, when processes race, moving rows the default partition held for the month', async () => {
    const [far] = await insertOrFindEvents(database.db, [event('far', '2032-05-05T00:00:00Z')]);
    const where = async () => {
      const [row] = await database.db.execute<{ partition: string }>(
        sql`select tableoid::regclass::text as partition from events where id = ${far!.id}`,
      );
      return row?.partition;
    };
    expect(await where()).toBe('events_default');
    const may = monthOf(new Date('2032-05-01T00:00:00Z'));
    const created = await Promise.all([0, 1, 2].map(() => ensureEventMonthTables(database.db, { from: may, count: 2 })));
    expect(created.flat().sort()).toEqual([monthTableName(may), monthTableName(may + 1)]);
    expect(await where()).toBe('events_2032_05');
    expect(await ensureEventMonthTables(database.db, { from: may, count: 2 })).toEqual([]);
  });

  it('retention drops whole partitions past the horizon (and old default rows with pending markers), never newer events', async () => {
    const stored = await insertOrFindEvents(database.db, [
      event('retention', '2031-01-15T00:00:00Z'),
      event('retention', '2031-02-15T00:00:00Z'),
      event('retention', '2031-03-15T00:00:00Z'),
      event('retention', '2001-01-01T00:00:00Z'), // no partition: the default one
    ]);
    const ids = stored.map((s) => s.id);
    const left = async () =>
      (await database.db.select({ id: schema.events.id }).from(schema.events).where(inArray(schema.events.id, ids)))
        .map((r) => r.id)
        .sort();
    const pending = async () =>
      (
        await database.db
          .select({ id: schema.pendingEvents.eventId })
          .from(schema.pendingEvents)
          .where(inArray(schema.pendingEvents.eventId, ids))
      ).length;
    const newerBefore = await database.db.$count(
      schema.events,
      sql`${schema.events.occurredAt} >= '2031-02-01T00:00:00Z'::timestamptz`,
    );

    const dry = await dropExpiredEvents(database.db, { horizon: JAN + 1, dryRun: true });
    expect(dry.partitions).toContain('events_2031_01');
    expect(dry.partitions).not.toContain('events_2031_02');
    expect(dry.defaultRows).toBe(1);
    expect(await left()).toHaveLength(4);

    const done = await dropExpiredEvents(database.db, { horizon: JAN + 1, dryRun: false });
    expect(done.partitions).toEqual(dry.partitions);
    expect(await left()).toEqual([ids[1]!, ids[2]!].sort());
    expect(await pending()).toBe(2);
    expect(await database.db.$count(schema.events, sql`${schema.events.occurredAt} >= '2031-02-01T00:00:00Z'::timestamptz`)).toBe(
      newerBefore,
    );
    const names = (await listEventMonthTables(database.db)).map((p) => p.name);
    expect(names).not.toContain('events_2031_01');
    expect(names).toEqual(expect.arrayContaining(['events_2031_02', 'events_2031_03', 'events_default']));
    // An event of a dropped month can still be sent: it lands in the default partition until the next pass.
    const [again] = await insertOrFindEvents(database.db, [event('retention', '2031-01-15T00:00:00Z')]);
    expect(again!.inserted).toBe(true);
    expect((await dropExpiredEvents(database.db, { horizon: JAN + 1, dryRun: false })).defaultRows).toBe(1);
    expect(await database.db.$count(schema.events, eq(schema.events.id, again!.id))).toBe(0);
  });
});
