// Calendar days in an IANA time zone, for streak periods and repeating chains
// (docs/quest-language.md). Days are numbered from 1970-01-01 (day 0); times
// are epoch microseconds.

const MICROS_PER_DAY = 86_400_000_000n;
const formats = new Map<string, Intl.DateTimeFormat>();

function formatIn(timezone: string): Intl.DateTimeFormat {
  let format = formats.get(timezone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timezone, format);
  }
  return format;
}

/** The wall-clock time at `ms` in `timezone`, read as if it were UTC (milliseconds). */
function wallClockMs(ms: number, timezone: string): number {
  const parts = formatIn(timezone).formatToParts(new Date(ms));
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
}

const floorDiv = (a: bigint, b: bigint) => {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
};

export const TIMEZONE_RULE = 'must be an IANA time zone name, e.g. Europe/Berlin';

/** Whether `timezone` names an IANA zone this runtime knows (UTC included). */
export function isKnownTimezone(timezone: string): boolean {
  try {
    formatIn(timezone);
    return true;
  } catch {
    return false;
  }
}

// The matcher asks for the day of every event of a repeating chain or streak
// task, and for the bounds of its run: each answer read through Intl costs
// microseconds (formatToParts), several per event. Both are kept: a zone's
// offset per minute (zones change offset only between minutes, and a minute
// whose two ends disagree is never kept) and each day's first instant.
const KEPT_PER_ZONE = 4096;
const offsets = new Map<string, Map<number, number>>();
const dayStarts = new Map<string, Map<number, bigint>>();

/** A zone's map of kept answers, emptied when full (the matcher's instants cluster, so this is rare). */
function keptFor<V>(kept: Map<string, Map<number, V>>, timezone: string): Map<number, V> {
  let zone = kept.get(timezone);
  if (zone === undefined || zone.size >= KEPT_PER_ZONE) {
    zone = new Map();
    kept.set(timezone, zone);
  }
  return zone;
}

/** Wall clock minus the instant (to the second), in ms, at `ms` in `timezone`. */
const offsetAt = (ms: number, timezone: string) => wallClockMs(ms, timezone) - Math.floor(ms / 1000) * 1000;

/** The zone's offset at `ms`: wallClockMs(ms) is the instant's second plus it. */
function offsetMs(ms: number, timezone: string): number {
  const minute = Math.floor(ms / 60_000);
  const zone = keptFor(offsets, timezone);
  const known = zone.get(minute);
  if (known !== undefined) return known;
  const offset = offsetAt(minute * 60_000, timezone);
  if (offsetAt(minute * 60_000 + 59_999, timezone) !== offset) return offsetAt(ms, timezone);
  zone.set(minute, offset);
  return offset;
}

/** The number of the calendar day at `us` in `timezone`. */
export function localDay(us: bigint, timezone: string): number {
  if (timezone === 'UTC') return Number(floorDiv(us, MICROS_PER_DAY));
  const ms = Number(floorDiv(us, 1000n));
  return Math.floor((Math.floor(ms / 1000) * 1000 + offsetMs(ms, timezone)) / 86_400_000);
}

/** The first instant of a calendar day in `timezone` (its local midnight, or the first time after a gap that skips it). */
export function startOfDay(day: number, timezone: string): bigint {
  if (timezone === 'UTC') return BigInt(day * 86_400_000) * 1000n;
  const zone = keptFor(dayStarts, timezone);
  let start = zone.get(day);
  if (start === undefined) {
    start = firstInstantOf(day, timezone);
    zone.set(day, start);
  }
  return start;
}

function firstInstantOf(day: number, timezone: string): bigint {
  const midnight = day * 86_400_000;
  // The offset at a first guess, then at the instant it gives: right on both sides of a change of offset.
  const first = midnight - (wallClockMs(midnight, timezone) - midnight);
  let start = midnight - (wallClockMs(first, timezone) - first);
  // A midnight that a change of offset skips: the day starts at its first instant.
  while (localDay(BigInt(start) * 1000n, timezone) < day) start += 60_000;
  return BigInt(start) * 1000n;
}

/** Weeks start on Monday; day 0 (1970-01-01) was a Thursday. */
export const mondayOf = (day: number) => day - ((((day + 3) % 7) + 7) % 7);

/** The day number of the first of the month holding `day`, and of the next month's first. */
export function monthOf(day: number): { first: number; next: number } {
  const date = new Date(day * 86_400_000);
  const first = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / 86_400_000;
  const next = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) / 86_400_000;
  return { first, next };
}
