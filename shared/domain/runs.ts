import { localDay, startOfDay } from './calendar.js';
import { ONLY_RUN, type Run, runAt, runStartingAt } from './recurrence.js';
import type { ChainRules } from './walk.js';

// The runs of a chain as the §5 walk sees them (docs/quest-language.md,
// "Repeating chains"): a chain that does not repeat has one run (ONLY_RUN,
// its own dates); a repeating chain's run is a walk of its own over the
// events inside the run's dates, so each is the plain walk with other dates.

/** The rules of the run starting at `runStartUs`: the chain's, with the run's dates; null when no run starts there. */
export function runRules(rules: ChainRules, runStartUs: bigint): ChainRules | null {
  if (!rules.recurrence) return runStartUs === ONLY_RUN ? rules : null;
  const run = runStartingAt(rules, rules.recurrence, runStartUs);
  return run === null ? null : { ...rules, startUs: run.startUs, endUs: run.endUs, recurrence: null };
}

/** The run holding `us` (null outside the chain's dates); a chain that does not repeat has one, from its start to its end. */
export function runOf(rules: ChainRules, us: bigint): Run | null {
  if (!rules.recurrence) return us >= rules.startUs && us < rules.endUs ? { startUs: rules.startUs, endUs: rules.endUs } : null;
  return runAt(rules, rules.recurrence, us);
}

/** The start a run is stored under: its own in a repeating chain, ONLY_RUN (0) in one that does not repeat. */
export const runStartOf = (rules: ChainRules, run: Run): bigint => (rules.recurrence ? run.startUs : ONLY_RUN);

/** Events by the start of the run they fall in (events outside the chain's dates are in none). */
export function eventsByRun<E extends { occurredUs: bigint }>(
  rules: ChainRules,
  events: readonly E[],
): Map<bigint, readonly E[]> {
  // The matcher's hot path for every chain that does not repeat: no copy.
  if (!rules.recurrence) return new Map([[ONLY_RUN, events]]);
  const byRun = new Map<bigint, E[]>();
  for (const event of events) {
    const run = runAt(rules, rules.recurrence, event.occurredUs);
    if (run === null) continue;
    const list = byRun.get(run.startUs);
    if (list) list.push(event);
    else byRun.set(run.startUs, [event]);
  }
  return byRun;
}

/**
 * The next instant after `nowUs` at which what the read shows of the chain
 * changes by time alone, besides its dates: a repeating chain's next run, and
 * for streak tasks the next local day (a streak shows 0 once a period passes
 * without an event). Null when nothing does.
 */
export function nextTimeEdgeUs(rules: ChainRules, nowUs: bigint): bigint | null {
  let next: bigint | null = null;
  if (rules.recurrence) next = runOf(rules, nowUs)?.endUs ?? null;
  if (rules.tasks.some((task) => task.streak)) {
    const timezone = rules.timezone ?? 'UTC';
    const tomorrow = startOfDay(localDay(nowUs, timezone) + 1, timezone);
    if (next === null || tomorrow < next) next = tomorrow;
  }
  return next;
}
