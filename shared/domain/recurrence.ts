import { localDay, mondayOf, monthOf, startOfDay } from './calendar.js';
import type { ChainWindow } from './conditions.js';

// Repeating chains (docs/quest-language.md, "Repeating chains"): each
// calendar day, week (from Monday) or month inside the chain's dates is a run
// of its own. A run is named by its first instant (`startUs`, epoch µs).

export type Recurrence = { every: 'day' | 'week' | 'month'; timezone: string };

/** One run of a chain: [startUs, endUs), its calendar period cut to the chain's dates. */
export type Run = { startUs: bigint; endUs: bigint };

/** The run start a chain that does not repeat is stored under: its one run is the whole chain. */
export const ONLY_RUN = 0n;

/** A calendar day, week or month in the chain's zone: [startUs, endUs). A run is one cut to the chain's dates. */
type Period = { startUs: bigint; endUs: bigint };

/** The calendar period holding `us` (uncut). */
function periodAt(us: bigint, recurrence: Recurrence): Period {
  const { every, timezone } = recurrence;
  const day = localDay(us, timezone);
  if (every === 'day') return { startUs: startOfDay(day, timezone), endUs: startOfDay(day + 1, timezone) };
  if (every === 'week') {
    const monday = mondayOf(day);
    return { startUs: startOfDay(monday, timezone), endUs: startOfDay(monday + 7, timezone) };
  }
  const { first, next } = monthOf(day);
  return { startUs: startOfDay(first, timezone), endUs: startOfDay(next, timezone) };
}

/** The run holding `us`, or null outside the chain's dates. */
export function runAt(window: ChainWindow, recurrence: Recurrence, us: bigint): Run | null {
  if (us < window.startUs || us >= window.endUs) return null;
  const period = periodAt(us, recurrence);
  return {
    startUs: period.startUs > window.startUs ? period.startUs : window.startUs,
    endUs: period.endUs < window.endUs ? period.endUs : window.endUs,
  };
}

/** The run that starts at `startUs`, or null when no run of the chain starts there. */
export function runStartingAt(window: ChainWindow, recurrence: Recurrence, startUs: bigint): Run | null {
  const run = runAt(window, recurrence, startUs);
  return run !== null && run.startUs === startUs ? run : null;
}

/** An id within a run: itself in a chain that does not repeat (so those keys are as before runs existed), `id@runStart` in a run of a repeating one. */
export const inRun = (id: string, runStartUs: bigint) => (runStartUs === ONLY_RUN ? id : `${id}@${runStartUs}`);

/** The run a repeating chain is in at `nowUs`: the first before its start, the last after its end. */
export function currentRun(window: ChainWindow, recurrence: Recurrence, nowUs: bigint): Run {
  const at = nowUs < window.startUs ? window.startUs : nowUs >= window.endUs ? window.endUs - 1n : nowUs;
  return runAt(window, recurrence, at)!;
}

/** A chain's dates and recurrence: all that places an instant in its run. */
export type ChainTiming = ChainWindow & { recurrence?: Recurrence | null };

/** The run a stored run start names in a repeating chain; null for a chain that does not repeat (its one run is stored under ONLY_RUN), or a start that starts no run. */
export function storedRun(timing: ChainTiming, runStartUs: bigint): Run | null {
  return timing.recurrence ? runStartingAt(timing, timing.recurrence, runStartUs) : null;
}

/**
 * The start of the run a request (a claim, an explanation) is about: the one
 * it names, which must start a run of the chain, or by default the current
 * run's; ONLY_RUN (0) for a chain that does not repeat, which takes no
 * `period_start`. A string: why the named start is refused (for a 400 on
 * `period_start`).
 */
export function requestedRunStart(timing: ChainTiming, asked: bigint | undefined, nowUs: bigint): bigint | string {
  if (!timing.recurrence)
    return asked === undefined ? ONLY_RUN : 'period_start: the quest chain does not repeat; leave period_start out';
  if (asked === undefined) return currentRun(timing, timing.recurrence, nowUs).startUs;
  return runStartingAt(timing, timing.recurrence, asked) === null
    ? 'period_start: no run of the quest chain starts there (see period_start in GET active)'
    : asked;
}
