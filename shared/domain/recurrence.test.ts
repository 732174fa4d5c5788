import { describe, expect, it } from 'vitest';
import { localDay, startOfDay } from './calendar.js';
import { currentRun, type Recurrence, runAt, runStartingAt } from './recurrence.js';
import { nextTimeEdgeUs } from './runs.js';

// Runs of repeating chains: calendar periods in the chain's zone, cut to its dates.

const us = (iso: string) => BigInt(Date.parse(iso)) * 1000n;
const iso = (micros: bigint) => new Date(Number(micros / 1000n)).toISOString();
const window = { startUs: us('2026-01-01T00:00:00Z'), endUs: us('2027-01-01T00:00:00Z') };
const runOf = (recurrence: Recurrence, at: string) => {
  const run = runAt(window, recurrence, us(at));
  return run && [iso(run.startUs), iso(run.endUs)];
};

describe('runs of a repeating chain', () => {
  it('a day runs from local midnight to local midnight', () => {
    expect(runOf({ every: 'day', timezone: 'UTC' }, '2026-03-10T15:00:00Z')).toEqual([
      '2026-03-10T00:00:00.000Z',
      '2026-03-11T00:00:00.000Z',
    ]);
    // 23:30 UTC on the 10th is already the 11th in Berlin (UTC+1).
    expect(runOf({ every: 'day', timezone: 'Europe/Berlin' }, '2026-03-10T23:30:00Z')).toEqual([
      '2026-03-10T23:00:00.000Z',
      '2026-03-11T23:00:00.000Z',
    ]);
  });

  it('a day across a change of offset is 23 or 25 hours long', () => {
    // Berlin moves to summer time on 2026-03-29 (02:00 -> 03:00) and back on 2026-10-25.
    expect(runOf({ every: 'day', timezone: 'Europe/Berlin' }, '2026-03-29T12:00:00Z')).toEqual([
      '2026-03-28T23:00:00.000Z',
      '2026-03-29T22:00:00.000Z',
    ]);
    expect(runOf({ every: 'day', timezone: 'Europe/Berlin' }, '2026-10-25T12:00:00Z')).toEqual([
      '2026-10-24T22:00:00.000Z',
      '2026-10-25T23:00:00.000Z',
    ]);
  });

  it('a day whose midnight a change of offset skips starts at its first instant', () => {
    // Santiago moves its clocks from 00:00 to 01:00 on 2026-09-06: that day starts at 01:00 local (04:00 UTC).
    const day = localDay(us('2026-09-06T12:00:00Z'), 'America/Santiago');
    expect(iso(startOfDay(day, 'America/Santiago'))).toBe('2026-09-06T04:00:00.000Z');
  });

  it('a week runs from Monday, a month from the first', () => {
    // 2026-03-12 is a Thursday.
    expect(runOf({ every: 'week', timezone: 'UTC' }, '2026-03-12T08:00:00Z')).toEqual([
      '2026-03-09T00:00:00.000Z',
      '2026-03-16T00:00:00.000Z',
    ]);
    expect(runOf({ every: 'month', timezone: 'UTC' }, '2026-02-20T08:00:00Z')).toEqual([
      '2026-02-01T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
    ]);
    expect(runOf({ every: 'month', timezone: 'Asia/Tokyo' }, '2026-02-28T20:00:00Z')).toEqual([
      '2026-02-28T15:00:00.000Z',
      '2026-03-31T15:00:00.000Z',
    ]);
  });

  it("the first and last runs are cut to the chain's dates, and nothing is outside them", () => {
    const chain = { startUs: us('2026-01-01T12:00:00Z'), endUs: us('2026-01-03T06:00:00Z') };
    const daily: Recurrence = { every: 'day', timezone: 'UTC' };
    expect(runAt(chain, daily, us('2026-01-01T13:00:00Z'))).toEqual({
      startUs: us('2026-01-01T12:00:00Z'),
      endUs: us('2026-01-02T00:00:00Z'),
    });
    expect(runAt(chain, daily, us('2026-01-03T05:00:00Z'))).toEqual({
      startUs: us('2026-01-03T00:00:00Z'),
      endUs: us('2026-01-03T06:00:00Z'),
    });
    expect(runAt(chain, daily, us('2026-01-03T06:00:00Z'))).toBeNull();
    expect(runAt(chain, daily, us('2026-01-01T11:59:59Z'))).toBeNull();
    expect(runStartingAt(chain, daily, us('2026-01-01T12:00:00Z'))).not.toBeNull();
    expect(runStartingAt(chain, daily, us('2026-01-02T00:00:00Z'))).not.toBeNull();
    expect(runStartingAt(chain, daily, us('2026-01-02T01:00:00Z'))).toBeNull();
    expect(currentRun(chain, daily, us('2025-06-01T00:00:00Z')).startUs).toBe(chain.startUs);
    expect(currentRun(chain, daily, us('2027-06-01T00:00:00Z')).endUs).toBe(chain.endUs);
  });
});

describe('when the read of a chain changes by time alone', () => {
  const task = { id: 't', sequenceNumber: 1, eventType: 'login', minAmount: null, currency: null, afterUs: null, beforeUs: null };
  const rules = { allowAnyOrder: false, ...window, tasks: [task] };

  it('never for a plain chain; at the next run for a repeating one; at the next local day for a streak', () => {
    expect(nextTimeEdgeUs(rules, us('2026-03-10T15:00:00Z'))).toBeNull();
    expect(nextTimeEdgeUs({ ...rules, recurrence: { every: 'week', timezone: 'UTC' } }, us('2026-03-12T15:00:00Z'))).toBe(
      us('2026-03-16T00:00:00Z'),
    );
    const streak = { ...rules, timezone: 'Asia/Tokyo', tasks: [{ ...task, streak: { periods: 3, every: 'week' as const } }] };
    expect(nextTimeEdgeUs(streak, us('2026-03-12T16:00:00Z'))).toBe(us('2026-03-13T15:00:00Z'));
  });
});
