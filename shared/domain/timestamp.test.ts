import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dateToMicros, formatIsoMicros, formatIsoMillis, parseUtcTimestamp, UTC_TIMESTAMP_PATTERN } from './timestamp.js';

// Oracle for ms-aligned instants in years 1970+: Date is exact at ms precision.
const us = (iso: string, micros = 0n): bigint => BigInt(Date.parse(iso)) * 1000n + micros;

const MIN_US = -62_135_596_800_000_000n; // 0001-01-01T00:00:00Z
const MAX_US = 253_402_300_799_999_999n; // 9999-12-31T23:59:59.999999Z

describe('parseUtcTimestamp: accepted', () => {
  const valid: [string, bigint][] = [
    ['2026-01-02T03:04:05Z', us('2026-01-02T03:04:05.000Z')],
    ['2026-01-02T03:04:05.000Z', us('2026-01-02T03:04:05.000Z')],
    ['2026-01-02T03:04:05+00:00', us('2026-01-02T03:04:05.000Z')],
    ['2026-01-02T03:04:05.6Z', us('2026-01-02T03:04:05.600Z')],
    ['2026-01-02T03:04:05.678Z', us('2026-01-02T03:04:05.678Z')],
    ['2026-01-02T03:04:05.678901Z', us('2026-01-02T03:04:05.678Z', 901n)],
    ['2026-01-02T03:04:05.000001+00:00', us('2026-01-02T03:04:05.000Z', 1n)],
    ['1970-01-01T00:00:00Z', 0n],
    ['1969-12-31T23:59:59.999999Z', -1n],
    ['1969-07-20T20:17:40Z', -14_182_940_000_000n],
    ['2024-02-29T12:00:00Z', us('2024-02-29T12:00:00.000Z')],
    ['2000-02-29T00:00:00Z', us('2000-02-29T00:00:00.000Z')],
    ['2026-12-31T23:59:59.999999Z', us('2026-12-31T23:59:59.999Z', 999n)],
    ['0001-01-01T00:00:00Z', MIN_US],
    ['9999-12-31T23:59:59.999999Z', MAX_US],
  ];
  it.each(valid)('%s', (input, expected) => {
    expect(parseUtcTimestamp(input)).toBe(expected);
  });

  it('gives one instant for Z, .000Z and +00:00', () => {
    const spellings = ['2026-03-04T05:06:07Z', '2026-03-04T05:06:07.000Z', '2026-03-04T05:06:07+00:00'];
    const values = new Set(spellings.map(parseUtcTimestamp));
    expect(values.size).toBe(1);
    expect([...values][0]).not.toBeNull();
  });
});

describe('parseUtcTimestamp: rejected', () => {
  const invalid: [string, string][] = [
    ['7 fractional digits', '2026-01-02T03:04:05.1234567Z'],
    ['empty fraction', '2026-01-02T03:04:05.Z'],
    ['other offset', '2026-01-02T03:04:05+01:00'],
    ['negative zero offset', '2026-01-02T03:04:05-00:00'],
    ['compact offset', '2026-01-02T03:04:05+0000'],
    ['no zone', '2026-01-02T03:04:05'],
    ['lowercase t', '2026-01-02t03:04:05Z'],
    ['lowercase z', '2026-01-02T03:04:05z'],
    ['space separator', '2026-01-02 03:04:05Z'],
    ['no seconds', '2026-01-02T03:04Z'],
    ['date only', '2026-01-02'],
    ['unpadded fields', '2026-1-2T3:04:05Z'],
    ['Feb 30', '2026-02-30T00:00:00Z'],
    ['Feb 29 non-leap', '2025-02-29T00:00:00Z'],
    ['Feb 29 century non-leap', '1900-02-29T00:00:00Z'],
    ['Apr 31', '2026-04-31T00:00:00Z'],
    ['day 0', '2026-01-00T00:00:00Z'],
    ['day 32', '2026-01-32T00:00:00Z'],
    ['month 0', '2026-00-10T00:00:00Z'],
    ['month 13', '2026-13-01T00:00:00Z'],
    ['hour 24', '2026-01-02T24:00:00Z'],
    ['minute 60', '2026-01-02T03:60:00Z'],
    ['second 60', '2026-06-30T23:59:60Z'],
    ['year 0', '0000-01-01T00:00:00Z'],
    ['expanded year', '+02026-01-02T03:04:05Z'],
    ['5-digit year', '12026-01-02T03:04:05Z'],
    ['leading space', ' 2026-01-02T03:04:05Z'],
    ['trailing newline', '2026-01-02T03:04:05Z\n'],
    ['non-ASCII digits', '٢٠٢٦-01-02T03:04:05Z'],
    ['empty', ''],
  ];
  it.each(invalid)('%s: %s', (_why, input) => {
    expect(parseUtcTimestamp(input)).toBeNull();
  });
});

describe('UTC_TIMESTAMP_PATTERN', () => {
  it('checks shape only, leaving the calendar to parseUtcTimestamp', () => {
    expect(UTC_TIMESTAMP_PATTERN.test('2026-02-30T00:00:00Z')).toBe(true);
    expect(UTC_TIMESTAMP_PATTERN.test('2026-01-02T03:04:05.123456+00:00')).toBe(true);
    expect(UTC_TIMESTAMP_PATTERN.test('2026-01-02T03:04:05.1234567Z')).toBe(false);
    expect(UTC_TIMESTAMP_PATTERN.test('2026-01-02T03:04:05+01:00')).toBe(false);
  });
});

describe('formatting', () => {
  const cases: [bigint, string, string][] = [
    [0n, '1970-01-01T00:00:00.000Z', '1970-01-01T00:00:00.000000Z'],
    [-1n, '1969-12-31T23:59:59.999Z', '1969-12-31T23:59:59.999999Z'],
    [-1_000n, '1969-12-31T23:59:59.999Z', '1969-12-31T23:59:59.999000Z'],
    [-1_001n, '1969-12-31T23:59:59.998Z', '1969-12-31T23:59:59.998999Z'],
    [us('2026-01-02T03:04:05.678Z', 901n), '2026-01-02T03:04:05.678Z', '2026-01-02T03:04:05.678901Z'],
    [MIN_US, '0001-01-01T00:00:00.000Z', '0001-01-01T00:00:00.000000Z'],
    [MAX_US, '9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999999Z'],
  ];
  it.each(cases)('%s', (value, millis, micros) => {
    expect(formatIsoMillis(value)).toBe(millis);
    expect(formatIsoMicros(value)).toBe(micros);
  });

  it('refuses instants outside four-digit years', () => {
    expect(() => formatIsoMicros(MIN_US - 1n)).toThrow(RangeError);
    expect(() => formatIsoMillis(MAX_US + 1n)).toThrow(RangeError);
  });

  it('round-trips every instant through formatIsoMicros losslessly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: MIN_US, max: MAX_US }), (value) => {
        expect(parseUtcTimestamp(formatIsoMicros(value))).toBe(value);
      }),
      { numRuns: 300 },
    );
  });

  it('formatIsoMillis agrees with Date at millisecond precision (floor)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: MIN_US, max: MAX_US }), (value) => {
        const floorMs = value >= 0n || value % 1000n === 0n ? value / 1000n : value / 1000n - 1n;
        expect(formatIsoMillis(value)).toBe(new Date(Number(floorMs)).toISOString());
      }),
      { numRuns: 300 },
    );
  });

  it('canonicalises the other spellings', () => {
    expect(formatIsoMicros(parseUtcTimestamp('2026-01-02T03:04:05+00:00')!)).toBe('2026-01-02T03:04:05.000000Z');
    expect(formatIsoMicros(parseUtcTimestamp('2026-01-02T03:04:05.5Z')!)).toBe('2026-01-02T03:04:05.500000Z');
  });
});

describe('dateToMicros', () => {
  it('converts milliseconds exactly, before and after the epoch', () => {
    expect(dateToMicros(new Date('2026-01-02T03:04:05.678Z'))).toBe(us('2026-01-02T03:04:05.678Z'));
    expect(dateToMicros(new Date(-1))).toBe(-1000n);
  });
  it('rejects an invalid Date', () => {
    expect(() => dateToMicros(new Date('nope'))).toThrow(RangeError);
  });
});
