import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareBytes,
  compareStandings,
  currentPeriod,
  hasEnded,
  type LeaderboardTiming,
  leaderboardIssues,
  nextPeriod,
  parseStandingMember,
  periodAt,
  periodStartingAt,
  rankStandings,
  requestedPeriod,
  type Standing,
  standingMember,
  windowAround,
} from './leaderboards.js';

// §19: a leaderboard's periods, its validity, and the order of its standings.

const us = (iso: string) => BigInt(Date.parse(iso)) * 1000n;
const iso = (micros: bigint | null) => (micros === null ? null : new Date(Number(micros / 1000n)).toISOString());
const shown = (period: { startUs: bigint; endUs: bigint | null } | null) => period && [iso(period.startUs), iso(period.endUs)];

const weekly: LeaderboardTiming = {
  startUs: us('2026-03-04T12:00:00Z'),
  endUs: us('2026-04-01T00:00:00Z'),
  recurrence: { every: 'week', timezone: 'UTC' },
};

describe('periods of a leaderboard', () => {
  it('a board that does not repeat has one period, its dates; without an end it has no end', () => {
    const once: LeaderboardTiming = { startUs: us('2026-03-01T00:00:00Z'), endUs: us('2026-03-08T00:00:00Z'), recurrence: null };
    expect(shown(periodAt(once, us('2026-03-05T00:00:00Z')))).toEqual(['2026-03-01T00:00:00.000Z', '2026-03-08T00:00:00.000Z']);
    expect(periodAt(once, us('2026-03-08T00:00:00Z'))).toBeNull();
    const perpetual = { ...once, endUs: null };
    expect(shown(periodAt(perpetual, us('2030-01-01T00:00:00Z')))).toEqual(['2026-03-01T00:00:00.000Z', null]);
    expect(nextPeriod(perpetual, periodAt(perpetual, us('2030-01-01T00:00:00Z'))!)).toBeNull();
  });

  it('a repeating board runs calendar periods cut to its dates', () => {
    // 2026-03-04 is a Wednesday: the first week is cut at the start date.
    expect(shown(currentPeriod(weekly, us('2026-03-01T00:00:00Z')))).toEqual([
      '2026-03-04T12:00:00.000Z',
      '2026-03-09T00:00:00.000Z',
    ]);
    expect(shown(currentPeriod(weekly, us('2026-03-12T00:00:00Z')))).toEqual([
      '2026-03-09T00:00:00.000Z',
      '2026-03-16T00:00:00.000Z',
    ]);
    // After the end: the last period, cut at the end date.
    expect(shown(currentPeriod(weekly, us('2026-05-01T00:00:00Z')))).toEqual([
      '2026-03-30T00:00:00.000Z',
      '2026-04-01T00:00:00.000Z',
    ]);
    expect(nextPeriod(weekly, currentPeriod(weekly, us('2026-05-01T00:00:00Z')))).toBeNull();
  });

  it('periods follow the time zone, changes of offset included', () => {
    const daily: LeaderboardTiming = {
      startUs: us('2026-03-01T00:00:00Z'),
      endUs: null,
      recurrence: { every: 'day', timezone: 'Europe/Berlin' },
    };
    // Berlin moves to summer time on 2026-03-29: that day is 23 hours long.
    expect(shown(periodAt(daily, us('2026-03-29T12:00:00Z')))).toEqual(['2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
    const monthly: LeaderboardTiming = { ...daily, recurrence: { every: 'month', timezone: 'Asia/Tokyo' } };
    expect(shown(periodAt(monthly, us('2026-03-31T16:00:00Z')))).toEqual([
      '2026-03-31T15:00:00.000Z',
      '2026-04-30T15:00:00.000Z',
    ]);
  });

  it('a period is named by its start; another instant names none', () => {
    expect(shown(periodStartingAt(weekly, us('2026-03-09T00:00:00Z')))).toEqual([
      '2026-03-09T00:00:00.000Z',
      '2026-03-16T00:00:00.000Z',
    ]);
    expect(periodStartingAt(weekly, us('2026-03-10T00:00:00Z'))).toBeNull();
    expect(typeof requestedPeriod(weekly, us('2026-03-10T00:00:00Z'), 0n)).toBe('string');
    expect(shown(requestedPeriod(weekly, undefined, us('2026-03-20T00:00:00Z')) as never)).toEqual([
      '2026-03-16T00:00:00.000Z',
      '2026-03-23T00:00:00.000Z',
    ]);
    expect(hasEnded({ startUs: 0n, endUs: 10n }, 10n)).toBe(true);
    expect(hasEnded({ startUs: 0n, endUs: null }, 10n ** 18n)).toBe(false);
  });

  it('consecutive periods tile the board without gaps', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('day', 'week', 'month' as const),
        fc.constantFrom('UTC', 'Europe/Berlin', 'America/Santiago', 'Asia/Kolkata'),
        fc.integer({ min: 0, max: 400 * 86_400 }),
        fc.integer({ min: 1, max: 60 * 86_400 }),
        (every, timezone, startSeconds, lengthSeconds) => {
          const startUs = us('2025-06-01T00:00:00Z') + BigInt(startSeconds) * 1_000_000n;
          const timing: LeaderboardTiming = {
            startUs,
            endUs: startUs + BigInt(lengthSeconds) * 1_000_000n,
            recurrence: { every: every as 'day', timezone },
          };
          let period = currentPeriod(timing, 0n);
          expect(period.startUs).toBe(timing.startUs);
          for (let next = nextPeriod(timing, period); next !== null; next = nextPeriod(timing, period)) {
            expect(next.startUs).toBe(period.endUs);
            expect(periodStartingAt(timing, next.startUs)).toEqual(next);
            period = next;
          }
          expect(period.endUs).toBe(timing.endUs);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('what makes a leaderboard valid', () => {
  const valid = { startDate: 10n, endDate: null, recurrence: null, size: 1000 };
  it.each([
    [{ endDate: 10n }, 'end_date'],
    [{ endDate: 5n }, 'end_date'],
    [{ recurrence: { every: 'day', timezone: 'Mars/Olympus' } }, 'recurrence.timezone'],
    [{ recurrence: { every: 'year', timezone: 'UTC' } }, 'recurrence.every'],
    [{ size: 0 }, 'size'],
    [{ size: 100_001 }, 'size'],
    [{ size: 1.5 }, 'size'],
  ])('%o breaks the rule of %s', (change, field) => {
    expect(leaderboardIssues({ ...valid, ...change }).map((issue) => issue.path.join('.'))).toEqual([field]);
  });
  it('a valid board breaks none', () => {
    expect(leaderboardIssues(valid)).toEqual([]);
    expect(
      leaderboardIssues({ ...valid, endDate: 11n, recurrence: { every: 'month', timezone: 'Asia/Tokyo' }, size: 100_000 }),
    ).toEqual([]);
  });
});

describe('the order of standings', () => {
  const s = (platformUserId: string, score: number, reachedUs: bigint): Standing => ({ platformUserId, score, reachedUs });

  it('score first, then who reached it first, then the user id by bytes; ranks without gaps', () => {
    const ranked = rankStandings([s('b', 5, 20n), s('a', 5, 20n), s('c', 7, 99n), s('d', 5, 10n), s('z', 0, 1n)]);
    expect(ranked.map((r) => [r.rank, r.platformUserId])).toEqual([
      [1, 'c'],
      [2, 'd'],
      [3, 'a'],
      [4, 'b'],
    ]);
  });

  it('user ids compare by their UTF-8 bytes, as Redis and COLLATE "C" do', () => {
    expect(compareBytes('Z', 'a')).toBeLessThan(0);
    expect(compareBytes('é', 'z')).toBeGreaterThan(0);
    expect(compareBytes('ab', 'abc')).toBeLessThan(0);
    // U+FFFD (3 bytes) sorts before an astral character (4 bytes), unlike UTF-16 code units.
    expect(compareBytes('\uFFFD', '😀')).toBeLessThan(0);
  });

  it("the sorted set's member order is the order of standings with equal scores", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 16n), max: 10n ** 17n }),
        fc.bigInt({ min: -(10n ** 16n), max: 10n ** 17n }),
        fc.string({ minLength: 1, maxLength: 8, unit: 'binary' }),
        fc.string({ minLength: 1, maxLength: 8, unit: 'binary' }),
        (r1, r2, u1, u2) => {
          const m1 = standingMember(r1, u1);
          const m2 = standingMember(r2, u2);
          expect(parseStandingMember(m1)).toEqual({ reachedUs: r1, platformUserId: u1 });
          expect(Math.sign(compareBytes(m1, m2))).toBe(Math.sign(compareStandings(s(u1, 1, r1), s(u2, 1, r2))));
        },
      ),
    );
  });

  it('a window around a rank keeps the rank inside and the limit when the board has enough', () => {
    expect(windowAround(1, 100, 5)).toEqual({ first: 1, last: 5 });
    expect(windowAround(50, 100, 5)).toEqual({ first: 48, last: 52 });
    expect(windowAround(100, 100, 5)).toEqual({ first: 96, last: 100 });
    expect(windowAround(2, 3, 10)).toEqual({ first: 1, last: 3 });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 100 }), (total, limit) => {
        const rank = Math.ceil(total / 2);
        const { first, last } = windowAround(rank, total, limit);
        expect(first <= rank && rank <= last).toBe(true);
        expect(last - first + 1).toBe(Math.min(limit, total));
      }),
    );
  });
});
