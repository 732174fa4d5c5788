import { localDay } from './calendar.js';

/**
 * The daily series of the chain stats (docs/chain-stats.md): one entry per day
 * of the chain's life in its time zone, from its first day to its last (or
 * today, while it runs), days without anything included as zeros, so a chart
 * shows the quiet days too. Days with activity outside that window (events
 * time-stamped before the start, claims after the end) widen it.
 */

export interface DayCounts {
  /** YYYY-MM-DD in the chain's time zone. */
  day: string;
  starts: number;
  completions: number;
  claims: number;
}

/** Never more than this many days (ten years), whatever the dates stored. */
export const MAX_SERIES_DAYS = 3660;

/** The calendar day of an instant (epoch milliseconds) in an IANA time zone, as YYYY-MM-DD (localDay of calendar.ts). */
export function dayIn(timezone: string, epochMs: number): string {
  return new Date(localDay(BigInt(Math.floor(epochMs)) * 1000n, timezone) * 86_400_000).toISOString().slice(0, 10);
}

const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

export function fillDays(counted: readonly DayCounts[], window: { firstDay: string; lastDay: string }): DayCounts[] {
  const byDay = new Map(counted.map((entry) => [entry.day, entry]));
  const days = counted.map((entry) => entry.day);
  let from = window.firstDay;
  let to = window.lastDay;
  for (const day of days) {
    if (day < from) from = day;
    if (day > to) to = day;
  }
  const series: DayCounts[] = [];
  for (let day = from; day <= to && series.length < MAX_SERIES_DAYS; day = nextDay(day)) {
    series.push(byDay.get(day) ?? { day, starts: 0, completions: 0, claims: 0 });
  }
  return series;
}

/**
 * A duration in seconds in the unit that reads best, chosen by its magnitude
 * (a median time to complete is negative when events from before the user's
 * registration completed the task: docs/chain-stats.md); `format` writes
 * the number. Self-contained on purpose: the campaign page ships its source
 * to the browser, the CLI calls it.
 */
export function durationWithUnit(seconds: number, format: (value: number) => string): string {
  const size = Math.abs(seconds);
  return size < 120
    ? `${format(seconds)} s`
    : size < 7200
      ? `${format(seconds / 60)} min`
      : size < 172800
        ? `${format(seconds / 3600)} h`
        : `${format(seconds / 86400)} d`;
}
