import { describe, expect, it } from 'vitest';
import { parseOffsetTimestamp } from './chain-timestamp.js';
import { formatIsoMicros, parseUtcTimestamp } from './timestamp.js';

const utc = (text: string) => parseUtcTimestamp(text)!;

describe('parseOffsetTimestamp', () => {
  it.each([
    ['2026-01-02T03:04:05Z', '2026-01-02T03:04:05.000000Z'],
    ['2026-01-02T03:04:05+00:00', '2026-01-02T03:04:05.000000Z'],
    ['2026-01-02T03:04:05-00:00', '2026-01-02T03:04:05.000000Z'],
    ['2026-03-01T00:00:00+01:00', '2026-02-28T23:00:00.000000Z'],
    ['2024-03-01T00:30:00+01:00', '2024-02-29T23:30:00.000000Z'],
    ['2026-12-31T18:30:00.123456-05:30', '2027-01-01T00:00:00.123456Z'],
  ])('reads %s as the instant %s', (input, expected) => {
    expect(formatIsoMicros(parseOffsetTimestamp(input)!)).toBe(expected);
  });

  it('gives the same instant for the same moment written in two offsets', () => {
    expect(parseOffsetTimestamp('2026-06-01T12:00:00+02:00')).toBe(parseOffsetTimestamp('2026-06-01T05:00:00-05:00'));
    expect(parseOffsetTimestamp('2026-06-01T10:00:00Z')).toBe(utc('2026-06-01T10:00:00Z'));
  });

  it.each([
    '2026-01-02T03:04:05',
    '2026-01-02 03:04:05Z',
    '2026-01-02T03:04:05.1234567Z',
    '2026-02-29T00:00:00Z',
    '2026-01-02T24:00:00Z',
    '2026-01-02T03:04:05+24:00',
    '2026-01-02T03:04:05+01:60',
    '2026-01-02T03:04:05+0100',
    '2026-01-02T03:04:05+01',
    '0001-01-01T00:00:00+00:01',
    '9999-12-31T23:59:59-00:01',
    '',
    'yesterday',
  ])('rejects %j', (input) => {
    expect(parseOffsetTimestamp(input)).toBeNull();
  });
});
