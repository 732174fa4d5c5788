import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { events, pendingEvents } from '../../../shared/db/schema/index.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import { createTestProvider, type TestProvider } from '../../../shared/testing/fixtures.js';
import { useTestService } from '../../testing/test-service.js';

// Product rules §3: dedup key (calling provider, user_id, event_type, instant
// of timestamp); a duplicate answers the stored event_id and received_at and
// stores nothing new; a duplicate of an unprocessed event is enqueued again.

const { database, api, platform, advertiser } = useTestService('event_dedup');

const send = (body: unknown, provider: TestProvider = platform) =>
  api.call('POST', '/v1/events', { headers: provider.headers, body });

async function storedCount(userId: string): Promise<number> {
  const [row] = await database.db
    .select({ count: count() })
    .from(events)
    .where(eq(events.userId, senderUserId(userId)));
  return row!.count;
}

describe('dedup', () => {
  it('the same instant written three ways is one event', async () => {
    const base = { user_id: 'same-instant', event_type: 'deposit' };
    const first = await send({ ...base, timestamp: '2026-03-01T10:00:00Z', amount: 10 });
    expect(first.status).toBe(200);
    expect(first.json.data).toMatchObject({ status: 'received', user_id: 'same-instant', event_type: 'deposit' });
    for (const timestamp of ['2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00+00:00', '2026-03-01T10:00:00.000000+00:00']) {
      const again = await send({ ...base, timestamp, amount: 99 });
      expect(again.status, timestamp).toBe(200);
      expect(again.json.data, timestamp).toEqual({ ...first.json.data, status: 'duplicate' });
    }
    expect(await storedCount('same-instant')).toBe(1);
    // The duplicate's different amount changed nothing.
    const [row] = await database.db.select({ amount: events.amount }).from(events).where(eq(events.id, first.json.data.event_id));
    expect(row?.amount).toBe(10);
  });

  it('instants a microsecond apart are distinct events', async () => {
    const base = { user_id: 'micro', event_type: 'tick' };
    const stamps = [
      '2026-03-01T10:00:00Z',
      '2026-03-01T10:00:00.000001Z',
      '2026-03-01T10:00:00.000002Z',
      '2026-03-01T10:00:00.001Z',
    ];
    const answers = [];
    for (const timestamp of stamps) answers.push(await send({ ...base, timestamp }));
    expect(answers.map((a) => a.json.data.status)).toEqual(['received', 'received', 'received', 'received']);
    expect(new Set(answers.map((a) => a.json.data.event_id)).size).toBe(4);
    expect(await storedCount('micro')).toBe(4);
    // Each repeat finds its own event, not a neighbour a microsecond away.
    for (const [i, timestamp] of stamps.entries()) {
      const again = await send({ ...base, timestamp });
      expect(again.json.data).toMatchObject({ status: 'duplicate', event_id: answers[i]!.json.data.event_id });
    }
  });

  it('user_id, event_type and timestamp each distinguish events', async () => {
    const base = { user_id: 'key-parts', event_type: 'a', timestamp: '2026-03-01T10:00:00Z' };
    const answers = [
      await send(base),
      await send({ ...base, user_id: 'key-parts-2' }),
      await send({ ...base, event_type: 'b' }),
      await send({ ...base, timestamp: '2026-03-01T10:00:01Z' }),
      await send({ ...base, user_id: 'KEY-PARTS' }),
    ];
    expect(answers.map((a) => a.json.data.status)).toEqual(['received', 'received', 'received', 'received', 'received']);
    expect(new Set(answers.map((a) => a.json.data.event_id)).size).toBe(5);
  });

  it('the same user_id, type and timestamp from two providers are two events', async () => {
    const body = { user_id: 'shared-id', event_type: 'signup', timestamp: '2026-03-01T10:00:00Z' };
    const otherPlatform = await createTestProvider(database.db, 'platform');
    const answers = [await send(body, platform), await send(body, advertiser), await send(body, otherPlatform)];
    expect(answers.map((a) => a.json.data.status)).toEqual(['received', 'received', 'received']);
    expect(new Set(answers.map((a) => a.json.data.event_id)).size).toBe(3);
    expect(await storedCount('shared-id')).toBe(3);
    // And each provider's repeat finds its own.
    expect((await send(body, advertiser)).json.data).toMatchObject({
      status: 'duplicate',
      event_id: answers[1]!.json.data.event_id,
    });
  });

  it('16 concurrent identical events: one received, one event id, one row', async () => {
    const body = { user_id: 'race', event_type: 'purchase', timestamp: '2026-03-01T10:00:00.123456Z', amount: 5 };
    const answers = await Promise.all(Array.from({ length: 16 }, () => send(body)));
    expect(answers.map((a) => a.status)).toEqual(Array(16).fill(200));
    expect(answers.filter((a) => a.json.data.status === 'received')).toHaveLength(1);
    expect(new Set(answers.map((a) => a.json.data.event_id)).size).toBe(1);
    expect(new Set(answers.map((a) => a.json.data.received_at)).size).toBe(1);
    expect(await storedCount('race')).toBe(1);
  });

  it('concurrent single sends and batches of the same event still make one row', async () => {
    const body = { user_id: 'race-mixed', event_type: 'purchase', timestamp: '2026-03-01T11:00:00Z' };
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => send(body)),
      ...Array.from({ length: 6 }, () =>
        api.call('POST', '/v1/events/batch', { headers: platform.headers, body: { events: [body, body] } }),
      ),
    ]);
    const ids = answers.flatMap((a) => (a.json.data.results ?? [a.json.data]).map((r: { event_id: string }) => r.event_id));
    const statuses = answers.flatMap((a) => (a.json.data.results ?? [a.json.data]).map((r: { status: string }) => r.status));
    expect(new Set(ids).size).toBe(1);
    expect(statuses.filter((s) => s === 'received')).toHaveLength(1);
    expect(await storedCount('race-mixed')).toBe(1);
  });
});

describe('a duplicate repairs a lost enqueue', () => {
  // Jobs carry an ingest call's event ids; find the queued jobs carrying one.
  const jobsOf = async (eventId: string) =>
    (await api.deps.producer.queue.getJobs(['waiting', 'delayed', 'prioritized'])).filter((job) =>
      (job.data as { eventIds?: string[] }).eventIds?.includes(eventId),
    );
  const loseJobsOf = async (eventId: string) => Promise.all((await jobsOf(eventId)).map((job) => job.remove()));

  it('enqueues a new event, and a duplicate of an unprocessed event whose job was lost', async () => {
    const body = { user_id: 'lost-job', event_type: 'deposit', timestamp: '2026-03-01T10:00:00Z' };
    const first = await send(body);
    const eventId = first.json.data.event_id as string;
    const [job] = await jobsOf(eventId);
    expect(job?.data).toEqual({ eventIds: [eventId], providerId: platform.id, requestIds: [first.headers.get('x-request-id')] });

    // Redis lost the job (restart, flush): the client's retry puts it back.
    await loseJobsOf(eventId);
    expect(await jobsOf(eventId)).toHaveLength(0);
    const retry = await send(body);
    expect(retry.json.data).toMatchObject({ status: 'duplicate', event_id: eventId });
    // The new job names the retry's request: the call that put the event back.
    expect((await jobsOf(eventId)).map((j) => j.data)).toEqual([
      { eventIds: [eventId], providerId: platform.id, requestIds: [retry.headers.get('x-request-id')] },
    ]);
  });

  it('does not enqueue a duplicate of an event already processed', async () => {
    const body = { user_id: 'done-job', event_type: 'deposit', timestamp: '2026-03-01T10:00:00Z' };
    const eventId = (await send(body)).json.data.event_id as string;
    await loseJobsOf(eventId);
    // Matched: the worker deletes the event's pending row.
    await database.db.delete(pendingEvents).where(eq(pendingEvents.eventId, eventId));
    expect((await send(body)).json.data.status).toBe('duplicate');
    expect(await jobsOf(eventId)).toHaveLength(0);
  });

  it('jobs carry ids only: events, their sender, the request; never event data', async () => {
    const body = {
      user_id: 'payload',
      event_type: 'x',
      timestamp: '2026-03-01T10:00:00Z',
      metadata: { secret: 'not in the job' },
    };
    const sent = await api.call('POST', '/v1/events', {
      headers: { ...platform.headers, 'x-request-id': 'req-payload-1' },
      body,
    });
    const eventId = sent.json.data.event_id as string;
    const [job] = await jobsOf(eventId);
    expect(job?.data).toEqual({ eventIds: [eventId], providerId: platform.id, requestIds: ['req-payload-1'] });
    expect(JSON.stringify(job?.data)).not.toContain('not in the job');
  });
});
