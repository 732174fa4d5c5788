import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { events } from '../../../shared/db/schema/index.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import { useTestService } from '../../testing/test-service.js';

// Product rules §3, batch: 1 to 500 items; 200 with one result per item in
// input order; 400 only when the envelope itself is wrong.

const { database, api, platform } = useTestService('event_batch');

const batch = (body: unknown) => api.call('POST', '/v1/events/batch', { headers: platform.headers, body });
const event = (userId: string, n: number, overrides: Record<string, unknown> = {}) => ({
  user_id: userId,
  event_type: 'deposit',
  timestamp: `2026-03-01T10:${String(Math.floor(n / 60) % 60).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}.${String(n).padStart(6, '0').slice(-6)}Z`,
  ...overrides,
});

describe('POST /v1/events/batch results', () => {
  it('answers each item in input order: received, rejected, duplicate of stored, in-batch repeat', async () => {
    const stored = await api.call('POST', '/v1/events', { headers: platform.headers, body: event('mix', 1) });
    expect(stored.json.data.status).toBe('received');

    const answer = await batch({
      events: [
        event('mix', 2),
        event('mix', 3, { user_id: 'u'.repeat(256) }),
        event('mix', 1),
        event('mix', 2, { timestamp: '2026-03-01T10:00:02.000002+00:00' }), // the first item's instant, written another way
        event('mix', 4, { timestamp: '2026-03-01T11:00:00+02:00' }),
        42,
        event('mix', 5, { amount: -1 }),
        event('mix', 6),
        null,
        event('mix', 7, { metadata: { bad: 'a\u0000' } }),
        event('mix', 8, { userId: 'typo' }),
      ],
    });
    expect(answer.status, answer.text).toBe(200);
    const results = answer.json.data.results;
    expect(results).toHaveLength(11);
    const rejected = (param: string, code = 'invalid_field') => ({
      status: 'rejected',
      code,
      param,
      error: expect.stringContaining(param),
    });
    expect(results[0]).toEqual({ event_id: expect.any(String), status: 'received' });
    expect(results[1]).toEqual(rejected('events.1.user_id'));
    expect(results[2]).toEqual({ event_id: stored.json.data.event_id, status: 'duplicate' });
    expect(results[3]).toEqual({ event_id: results[0].event_id, status: 'duplicate' });
    expect(results[4]).toEqual(rejected('events.4.timestamp'));
    expect(results[5]).toEqual(rejected('events.5'));
    expect(results[6]).toEqual(rejected('events.6.amount'));
    expect(results[7]).toEqual({ event_id: expect.any(String), status: 'received' });
    expect(results[8]).toEqual(rejected('events.8'));
    expect(results[9]).toEqual({ ...rejected('events.9.metadata'), param: expect.stringMatching(/^events\.9\.metadata/) });
    expect(results[10]).toEqual(rejected('events.10.userId', 'unknown_field'));

    const rows = await database.db
      .select({ id: events.id })
      .from(events)
      .where(eq(events.userId, senderUserId('mix')))
      .orderBy(events.occurredAt);
    expect(rows.map((r) => r.id)).toEqual([stored.json.data.event_id, results[0].event_id, results[7].event_id]);
  });

  it('a batch of only rejected items is still 200', async () => {
    const answer = await batch({ events: [{}, { user_id: 'x' }] });
    expect(answer.status).toBe(200);
    expect(answer.json.data.results.map((r: { status: string }) => r.status)).toEqual(['rejected', 'rejected']);
    expect(answer.json.data.results[1]).toMatchObject({ code: 'missing_field', param: 'events.1.event_type' });
  });

  it('a batch and a single send agree: the batch repeat of a single event is a duplicate', async () => {
    const first = await batch({ events: [event('agree', 1)] });
    const single = await api.call('POST', '/v1/events', { headers: platform.headers, body: event('agree', 1) });
    expect(single.json.data).toMatchObject({ status: 'duplicate', event_id: first.json.data.results[0].event_id });
  });

  it('accepts 500 items and answers 500 results', async () => {
    const answer = await batch({ events: Array.from({ length: 500 }, (_, i) => event('five-hundred', i)) });
    expect(answer.status).toBe(200);
    expect(answer.json.data.results).toHaveLength(500);
    expect(answer.json.data.results.every((r: { status: string }) => r.status === 'received')).toBe(true);
    const [row] = await database.db
      .select({ count: count() })
      .from(events)
      .where(eq(events.userId, senderUserId('five-hundred')));
    expect(row?.count).toBe(500);
  });

  it('two concurrent batches sharing events in opposite orders both succeed (no deadlock)', async () => {
    for (let round = 0; round < 8; round += 1) {
      const events = Array.from({ length: 200 }, (_, i) => event(`order-${round}`, i));
      const reversed = [...events].reverse();
      const answers = await Promise.all([events, reversed, events, reversed].map((items) => batch({ events: items })));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      const received = answers.flatMap((a) => a.json.data.results).filter((r: { status: string }) => r.status === 'received');
      expect(received).toHaveLength(200);
    }
  });
});

describe('POST /v1/events/batch envelope errors -> 400 naming events', () => {
  it.each([
    ['events missing', {}],
    ['events not an array', { events: { user_id: 'x' } }],
    ['events a string', { events: 'x' }],
    ['events null', { events: null }],
    ['events empty', { events: [] }],
    ['501 items', { events: Array.from({ length: 501 }, (_, i) => event('too-many', i)) }],
  ])('%s', async (_label, body) => {
    const answer = await batch(body);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({
      success: false,
      code: 'events' in body ? 'invalid_field' : 'missing_field',
      param: 'events',
    });
    expect(answer.json.error).toContain('events');
  });

  it('stores nothing from a rejected envelope', async () => {
    await batch({ events: Array.from({ length: 501 }, (_, i) => event('too-many-2', i)) });
    const [row] = await database.db
      .select({ count: count() })
      .from(events)
      .where(eq(events.userId, senderUserId('too-many-2')));
    expect(row?.count).toBe(0);
  });
});
