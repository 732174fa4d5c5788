import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localDay, startOfDay } from './calendar.js';

// The kept offsets and day starts (calendar.ts) must answer what Intl answers
// for every instant: read Intl directly here, around changes of offset in
// zones that move their clocks by an hour, half an hour, and at midnight.

const ZONES = ['America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'America/Santiago', 'Asia/Kolkata', 'Pacific/Chatham'];

const offsetNames = new Map<string, Intl.DateTimeFormat>();

/**
 * The wall clock at `ms`, read as UTC: the instant (to the second) plus the
 * zone's offset as Intl names it ("GMT+05:30"), asked every time. Another
 * reading of Intl than calendar.ts's (which reads the wall clock's fields).
 */
function directWallMs(ms: number, timezone: string): number {
  let format = offsetNames.get(timezone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: timezone, timeZoneName: 'longOffset' });
    offsetNames.set(timezone, format);
  }
  const name = format.formatToParts(new Date(ms)).find((part) => part.type === 'timeZoneName')!.value;
  const [, sign, hours, minutes, seconds] = /^GMT(?:([+-])(\d\d):(\d\d)(?::(\d\d))?)?$/.exec(name)!;
  const offsetS =
    sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds ?? 0));
  return Math.floor(ms / 1000) * 1000 + offsetS * 1000;
}

function directLocalDay(us: bigint, timezone: string): number {
  const ms = Number(us / 1000n) - (us % 1000n < 0n ? 1 : 0);
  return Math.floor(directWallMs(ms, timezone) / 86_400_000);
}

// 2026, when every zone above changes offset at least once (Kolkata: never, as a control).
const FROM_US = Date.UTC(2026, 0, 1) * 1000;
const YEAR_US = 366 * 86_400_000_000;

describe('calendar days in a zone', () => {
  it('localDay answers what Intl does, for instants spread over a year and packed into minutes around them', () => {
    const instant = fc.tuple(fc.integer({ min: 0, max: YEAR_US }), fc.integer({ min: -120_000_000, max: 120_000_000 }));
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.array(instant, { minLength: 1, maxLength: 20 }), (zone, instants) => {
        for (const [at, near] of instants) {
          for (const us of [BigInt(FROM_US + at), BigInt(FROM_US + at + near)])
            expect(localDay(us, zone), `${zone} ${us}`).toBe(directLocalDay(us, zone));
        }
      }),
      { seed: 20_261_128, numRuns: 300 },
    );
  });

  it('localDay answers what Intl does every ten seconds of the three hours around each change of offset in the year, and around the local midnights after it', () => {
    let changes = 0;
    for (const zone of ZONES) {
      const fromMs = FROM_US / 1000;
      const offset = (ms: number) => directWallMs(ms, zone) - ms;
      for (let ms = fromMs; ms < fromMs + YEAR_US / 1000; ms += 900_000) {
        if (offset(ms) === offset(ms + 900_000)) continue;
        changes++;
        // The change, and the next two local midnights (a day's answer kept from before the change would be wrong there).
        const midnights = [1, 2].map((n) => Number(startOfDay(directLocalDay(BigInt(ms) * 1000n, zone) + n, zone) / 1000n));
        for (const near of [ms, ...midnights].flatMap((at) =>
          Array.from({ length: 1080 }, (_, i) => at - 5_400_000 + i * 10_000),
        )) {
          const us = BigInt(near) * 1000n + 999n;
          expect(localDay(us, zone), `${zone} ${new Date(near).toISOString()}`).toBe(directLocalDay(us, zone));
        }
      }
    }
    // Two a year in each zone but Kolkata's.
    expect(changes).toBe(10);
  });

  it('startOfDay is the first instant of its day, every day of a year, changes of offset included', () => {
    const first = Math.floor(FROM_US / 86_400_000_000);
    for (const zone of ZONES) {
      for (let day = first; day < first + 366; day++) {
        const start = startOfDay(day, zone);
        expect(directLocalDay(start, zone), `${zone} day ${day}`).toBe(day);
        expect(directLocalDay(start - 1n, zone), `${zone} day ${day}`).toBeLessThan(day);
        // Asked again: the kept answer.
        expect(startOfDay(day, zone)).toBe(start);
      }
    }
  });
});
