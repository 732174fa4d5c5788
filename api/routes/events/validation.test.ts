import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { events } from '../../../shared/db/schema/index.js';
import { formatIsoMicros } from '../../../shared/domain/timestamp.js';
import { useTestService } from '../../testing/test-service.js';

// Every published limit of POST /v1/events (public-interface Limits, product
// rules §3) at its bound and just past it. A rejected value answers 400 naming
// the field; an accepted one 200 and is stored.

const { database, api, platform } = useTestService('event_validation');
let counter = 0;

/** A valid event, distinct from every other one this file sends, with `overrides` applied. */
function event(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return { user_id: 'limits-user', event_type: `type-${counter}`, timestamp: '2026-03-01T10:00:00Z', ...overrides };
}

const send = (body: unknown) => api.call('POST', '/v1/events', { headers: platform.headers, body });

const accepted: [string, Record<string, unknown>][] = [
  ['user_id of 255 characters', { user_id: 'u'.repeat(255) }],
  ['user_id of 1 character', { user_id: 'u' }],
  ['user_id of 255 multi-byte characters', { user_id: 'é'.repeat(255) }],
  ['event_type of 100 characters', { event_type: 't'.repeat(100) }],
  ['amount 0', { amount: 0 }],
  ['amount with decimals', { amount: 12.34 }],
  ['amount null', { amount: null }],
  ['currency of 10 characters', { currency: 'C'.repeat(10) }],
  ['currency empty', { currency: '' }],
  ['reference of 255 characters', { reference: 'r'.repeat(255) }],
  ['timestamp with 6 fractional digits', { timestamp: '2026-03-01T10:00:00.123456Z' }],
  ['timestamp with 1 fractional digit', { timestamp: '2026-03-01T10:00:00.1Z' }],
  ['timestamp +00:00', { timestamp: '2026-03-01T10:00:00+00:00' }],
  ['timestamp on 29 February of a leap year', { timestamp: '2028-02-29T23:59:59Z' }],
  ['metadata nested 16 levels', { metadata: nested(15) }],
  ['metadata with unicode', { metadata: { name: 'Zoë 🎉', list: [1, 'two', null, { three: true }] } }],
  ['metadata null', { metadata: null }],
];

const rejected: [string, Record<string, unknown>, string][] = [
  ['user_id of 256 characters', { user_id: 'u'.repeat(256) }, 'user_id'],
  ['user_id empty', { user_id: '' }, 'user_id'],
  ['user_id missing', { user_id: undefined }, 'user_id'],
  ['user_id a number', { user_id: 42 }, 'user_id'],
  ['user_id containing NUL', { user_id: 'a\u0000b' }, 'user_id'],
  ['event_type of 101 characters', { event_type: 't'.repeat(101) }, 'event_type'],
  ['event_type empty', { event_type: '' }, 'event_type'],
  ['event_type missing', { event_type: undefined }, 'event_type'],
  ['event_type containing NUL', { event_type: '\u0000' }, 'event_type'],
  ['amount -0.01', { amount: -0.01 }, 'amount'],
  ['amount a string', { amount: '5' }, 'amount'],
  ['currency of 11 characters', { currency: 'C'.repeat(11) }, 'currency'],
  ['currency containing NUL', { currency: 'US\u0000' }, 'currency'],
  ['reference of 256 characters', { reference: 'r'.repeat(256) }, 'reference'],
  ['reference containing NUL', { reference: '\u0000' }, 'reference'],
  ['timestamp with 7 fractional digits', { timestamp: '2026-03-01T10:00:00.1234567Z' }, 'timestamp'],
  ['timestamp +01:00', { timestamp: '2026-03-01T10:00:00+01:00' }, 'timestamp'],
  ['timestamp -00:00', { timestamp: '2026-03-01T10:00:00-00:00' }, 'timestamp'],
  ['timestamp without offset', { timestamp: '2026-03-01T10:00:00' }, 'timestamp'],
  ['timestamp date only', { timestamp: '2026-03-01' }, 'timestamp'],
  ['timestamp 30 February', { timestamp: '2026-02-30T10:00:00Z' }, 'timestamp'],
  ['timestamp 29 February of a common year', { timestamp: '2026-02-29T10:00:00Z' }, 'timestamp'],
  ['timestamp hour 24', { timestamp: '2026-03-01T24:00:00Z' }, 'timestamp'],
  ['timestamp leap second', { timestamp: '2026-03-01T10:00:60Z' }, 'timestamp'],
  ['timestamp month 13', { timestamp: '2026-13-01T10:00:00Z' }, 'timestamp'],
  ['timestamp year 0', { timestamp: '0000-01-01T00:00:00Z' }, 'timestamp'],
  ['timestamp as epoch number', { timestamp: 1772359200 }, 'timestamp'],
  ['timestamp missing', { timestamp: undefined }, 'timestamp'],
  ['metadata an array', { metadata: [1, 2] }, 'metadata'],
  ['metadata a string', { metadata: 'x' }, 'metadata'],
  ['metadata with a NUL value', { metadata: { note: 'a\u0000b' } }, 'metadata'],
  ['metadata with a NUL key', { metadata: { 'a\u0000': 1 } }, 'metadata'],
  ['metadata nested 17 levels', { metadata: nested(16) }, 'metadata'],
];

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < depth; i += 1) value = { next: value };
  return value;
}

describe('POST /v1/events limits', () => {
  it.each(accepted)('accepts %s', async (_label, overrides) => {
    const body = event(overrides);
    const answer = await send(body);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data).toMatchObject({ status: 'received', user_id: body.user_id, event_type: body.event_type });
    const [row] = await database.db
      .select({ user_id: events.userId })
      .from(events)
      .where(eq(events.id, answer.json.data.event_id));
    expect(row?.user_id).toBe(body.user_id);
  });

  it.each(rejected)('rejects %s with 400 naming the field', async (_label, overrides, field) => {
    const answer = await send(event(overrides));
    expect(answer.status, answer.text).toBe(400);
    const code = Object.values(overrides)[0] === undefined ? 'missing_field' : 'invalid_field';
    expect(answer.json).toMatchObject({ success: false, code });
    expect(answer.json.param).toMatch(new RegExp(`^${field}(\\.|$)`));
    expect(answer.json.error).toContain(field);
  });

  it('stores the exact microsecond instant and the optional fields', async () => {
    const answer = await send(
      event({ timestamp: '2026-03-01T10:00:00.000001Z', amount: 0, currency: 'EUR', reference: 'ref-1', metadata: { a: [1] } }),
    );
    expect(answer.status).toBe(200);
    const [stored] = await database.db
      .select({
        occurredAt: events.occurredAt,
        amount: events.amount,
        currency: events.currency,
        reference: events.reference,
        metadata: events.metadata,
      })
      .from(events)
      .where(eq(events.id, answer.json.data.event_id));
    // The stored instant to the microsecond, in UTC without the zone letter.
    const row = stored && { ...stored, occurred: formatIsoMicros(stored.occurredAt).slice(0, -1) };
    expect(row).toMatchObject({
      occurred: '2026-03-01T10:00:00.000001',
      amount: 0,
      currency: 'EUR',
      reference: 'ref-1',
      metadata: { a: [1] },
    });
  });

  it('answers received_at as ISO 8601 UTC with milliseconds', async () => {
    const answer = await send(event());
    expect(answer.json.data.received_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Math.abs(Date.parse(answer.json.data.received_at) - Date.now())).toBeLessThan(60_000);
  });

  it('absurd nesting (as deep as 64 KiB allows) is a 400, not a 500', async () => {
    const depth = 30_000;
    const body = `{"user_id":"u","event_type":"deep","timestamp":"2026-03-01T10:00:00Z","metadata":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    expect(body.length).toBeLessThan(64 * 1024);
    const answer = await api.call('POST', '/v1/events', { headers: platform.headers, body });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json.error).toContain('metadata');
  });

  // "\ud800" is a valid JSON escape but not a character: Postgres' jsonb refuses it.
  it.each([
    ['user_id', { user_id: 'a\ud800b' }],
    ['event_type', { event_type: '\udfff' }],
    ['reference', { reference: '\udc00' }],
    ['currency', { currency: 'x\ud83d' }],
    ['metadata', { metadata: { note: 'x\ud83d' } }],
    ['metadata', { metadata: { '\ud800': 1 } }],
  ])('an unpaired surrogate in %s is a 400 naming it, not a 500', async (field, overrides) => {
    const answer = await send(event(overrides));
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json.error).toContain(field);
  });

  it('a proper surrogate pair (an emoji) is accepted and stored intact', async () => {
    const answer = await send(event({ user_id: 'emoji-😀', metadata: { e: '🎉' } }));
    expect(answer.status).toBe(200);
    const [row] = await database.db
      .select({ user_id: events.userId })
      .from(events)
      .where(eq(events.id, answer.json.data.event_id));
    expect(row?.user_id).toBe('emoji-😀');
  });

  it('an unknown field is a 400 naming it (api/http/unknown-fields.test.ts covers every body)', async () => {
    const answer = await send(event({ extra: 'field' }));
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ code: 'unknown_field', param: 'extra' });
  });
});
