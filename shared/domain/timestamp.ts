// Instants in the domain are bigint microseconds since the Unix epoch.
// Postgres stores microseconds and JS Date only milliseconds, so parsing and
// formatting are done by hand here and never round-trip through Date.

/**
 * Shape of an accepted event timestamp (§3): UTC only, at most 6 fractional
 * digits. Calendar validity (Feb 30, hour 24, ...) is checked by
 * parseUtcTimestamp, not by this pattern. No `g` flag: safe to share.
 */
export const UTC_TIMESTAMP_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:Z|\+00:00)$/;

const US_PER_SECOND = 1_000_000n;
const US_PER_DAY = 86_400n * US_PER_SECOND;

// Years are limited to four digits so that formatting stays ISO 8601 without
// the expanded-year sign.
const MIN_YEAR = 1;
const MAX_YEAR = 9999;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

// Howard Hinnant's days_from_civil: proleptic Gregorian, exact for every year
// we accept, with no Date involved (Date.UTC maps years 0-99 to 19xx).
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}

/** Parses a strict UTC ISO 8601 timestamp into epoch microseconds, or null. */
export function parseUtcTimestamp(input: string): bigint | null {
  const m = UTC_TIMESTAMP_PATTERN.exec(input);
  if (m === null) return null;
  const [, ys, mos, ds, hs, mis, ss, fraction] = m;
  const year = Number(ys);
  const month = Number(mos);
  const day = Number(ds);
  const hour = Number(hs);
  const minute = Number(mis);
  const second = Number(ss);
  if (year < MIN_YEAR || year > MAX_YEAR) return null;
  if (month < 1 || month > 12) return null;
  if (day < 1 || day > daysInMonth(year, month)) return null;
  // No leap seconds: Postgres rejects :60 too, and an instant must be unique.
  if (hour > 23 || minute > 59 || second > 59) return null;
  const micros = fraction === undefined ? 0n : BigInt(fraction.padEnd(6, '0'));
  const seconds = BigInt(daysFromCivil(year, month, day)) * 86_400n + BigInt(hour * 3600 + minute * 60 + second);
  return seconds * US_PER_SECOND + micros;
}

// BigInt division truncates toward zero; instants before 1970 need floor.
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

// Splits an instant into its calendar second and the microseconds within it.
function formatParts(us: bigint): { seconds: string; micros: number } {
  const days = floorDiv(us, US_PER_DAY);
  const inDay = us - days * US_PER_DAY; // 0 <= inDay < US_PER_DAY
  const { year, month, day } = civilFromDays(Number(days));
  if (year < MIN_YEAR || year > MAX_YEAR) {
    throw new RangeError(`instant ${us} is outside years ${MIN_YEAR}..${MAX_YEAR}`);
  }
  const secOfDay = Number(inDay / US_PER_SECOND);
  const micros = Number(inDay % US_PER_SECOND);
  const hh = Math.floor(secOfDay / 3600);
  const mi = Math.floor((secOfDay % 3600) / 60);
  const ss = secOfDay % 60;
  return {
    seconds: `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hh, 2)}:${pad(mi, 2)}:${pad(ss, 2)}`,
    micros,
  };
}

/** Response format (`2026-01-02T03:04:05.678Z`); sub-millisecond part is floored. */
export function formatIsoMillis(us: bigint): string {
  const { seconds, micros } = formatParts(us);
  return `${seconds}.${pad(Math.floor(micros / 1000), 3)}Z`;
}

/** Lossless canonical form (`...05.678901Z`), e.g. to hand exact instants to Postgres. */
export function formatIsoMicros(us: bigint): string {
  const { seconds, micros } = formatParts(us);
  return `${seconds}.${pad(micros, 6)}Z`;
}

export function dateToMicros(d: Date): bigint {
  const ms = d.getTime();
  if (Number.isNaN(ms)) throw new RangeError('Invalid Date');
  return BigInt(ms) * 1000n;
}
