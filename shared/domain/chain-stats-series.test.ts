import { describe, expect, it } from 'vitest';
import { dayIn, fillDays, MAX_SERIES_DAYS } from './chain-stats-series.js';

const zero = (day: string) => ({ day, starts: 0, completions: 0, claims: 0 });

describe('fillDays', () => {
  it.each([
    {
      name: 'no activity: every day of the window as zeros',
      counted: [],
      window: { firstDay: '2026-01-30', lastDay: '2026-02-02' },
      days: ['2026-01-30', '2026-01-31', '2026-02-01', '2026-02-02'],
    },
    {
      name: 'a start before the window widens it',
      counted: [{ ...zero('2026-01-28'), starts: 2 }],
      window: { firstDay: '2026-01-30', lastDay: '2026-01-30' },
      days: ['2026-01-28', '2026-01-29', '2026-01-30'],
    },
    {
      name: 'a claim after the window widens it',
      counted: [{ ...zero('2026-03-01'), claims: 1 }],
      window: { firstDay: '2026-02-27', lastDay: '2026-02-28' },
      days: ['2026-02-27', '2026-02-28', '2026-03-01'],
    },
    { name: 'a window not begun: nothing', counted: [], window: { firstDay: '2026-05-02', lastDay: '2026-05-01' }, days: [] },
  ])('$name', ({ counted, window, days }) => {
    const series = fillDays(counted, window);
    expect(series.map((entry) => entry.day)).toEqual(days);
    for (const entry of counted) expect(series).toContainEqual(entry);
  });

  it('stops at ten years', () => {
    expect(fillDays([], { firstDay: '2000-01-01', lastDay: '2099-01-01' })).toHaveLength(MAX_SERIES_DAYS);
  });
});

describe('dayIn', () => {
  it('is the calendar day in the zone', () => {
    const instant = Date.parse('2026-03-01T23:30:00Z');
    expect(dayIn('UTC', instant)).toBe('2026-03-01');
    expect(dayIn('Europe/Berlin', instant)).toBe('2026-03-02');
    expect(dayIn('America/New_York', instant)).toBe('2026-03-01');
  });
});
