import { parseUtcTimestamp } from './timestamp.js';

/**
 * Chain and task dates are published as "ISO 8601 with offset", so unlike
 * event timestamps (UTC only, §3) an operator may write them in any offset:
 * `2026-03-01T00:00:00+01:00` is stored as the instant `2026-02-28T23:00:00Z`.
 * What is stored and compared is the instant; responses give it back in UTC.
 * The same precision rule as events applies (at most 6 fractional digits).
 */
const OFFSET_TIMESTAMP_PATTERN = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?)(Z|[+-](\d{2}):(\d{2}))$/;

export const OFFSET_TIMESTAMP_RULE = 'must be an ISO 8601 date-time with an offset (Z or ±HH:MM) and at most 6 fractional digits';

const US_PER_MINUTE = 60_000_000n;
// The instant must stay inside the years the domain can format (0001..9999).
const MIN_US = parseUtcTimestamp('0001-01-01T00:00:00Z')!;
const MAX_US = parseUtcTimestamp('9999-12-31T23:59:59.999999Z')!;

/** Epoch microseconds of the instant written, or null when the text is not such a timestamp. */
export function parseOffsetTimestamp(input: string): bigint | null {
  const m = OFFSET_TIMESTAMP_PATTERN.exec(input);
  if (m === null) return null;
  const [, local, offset, hh, mm] = m;
  const wallClockUs = parseUtcTimestamp(`${local}Z`);
  if (wallClockUs === null) return null;
  let offsetUs = 0n;
  if (offset !== 'Z') {
    const hours = Number(hh);
    const minutes = Number(mm);
    if (hours > 23 || minutes > 59) return null;
    const sign = offset!.startsWith('-') ? -1n : 1n;
    offsetUs = sign * BigInt(hours * 60 + minutes) * US_PER_MINUTE;
  }
  // Local time = UTC + offset, so UTC = local - offset.
  const us = wallClockUs - offsetUs;
  return us < MIN_US || us > MAX_US ? null : us;
}
