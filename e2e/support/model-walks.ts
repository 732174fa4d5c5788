import type { CountingEvent } from '../../shared/domain/conditions.js';
import { eventsByRun, runRules } from '../../shared/domain/runs.js';
import { type ChainRules, recomputeWalk, type WalkState } from '../../shared/domain/walk.js';

/**
 * The pure model of one user's progress in one chain: the full walk of §5
 * and §16 (recomputeWalk: completions and the tallies of counted, summed and
 * streak tasks) over every counting event, once per run, keyed by the period
 * the service stores the run under (0 for a chain that does not repeat).
 * Never the matcher's incremental path: each call walks the events from the
 * start. Runs without a relevant event are left out (nothing to store).
 */
export function modelWalks(rules: ChainRules, events: readonly CountingEvent[]): Map<bigint, WalkState> {
  const walks = new Map<bigint, WalkState>();
  for (const [period, runEvents] of eventsByRun(rules, events)) {
    const walk = recomputeWalk(runRules(rules, period)!, runEvents);
    if (walk.mark !== null) walks.set(period, walk);
  }
  return walks;
}
