import { type ChainRules, type Hold, recomputeWalk, redoWalk, redoWindow, type WalkAdvance, type WalkState } from './walk.js';

/**
 * What the matcher does with advanceWalk's verdict (core/matching/plan-batch.ts):
 * keep the advanced state; or redo the walk over the window of its late
 * events; or, when there is no window or the bounded one did not end
 * complete, recompute it over everything stored. `how` tells which, so the
 * property tests can count that every path is exercised.
 */
export function workerStep(
  chain: ChainRules,
  state: WalkState,
  result: WalkAdvance,
  stored: readonly Parameters<typeof recomputeWalk>[1][number][],
  holds: readonly Hold[] = [],
): { state: WalkState; how: 'advanced' | 'redone' | 'redone-bounded' | 'recomputed' } {
  if (!('recompute' in result)) return { state: result.state, how: 'advanced' };
  if (result.from !== undefined) {
    const window = redoWindow(chain, state, result.from);
    const redone = redoWalk(chain, state, window, stored, holds);
    if (redone !== null) return { state: redone, how: window.until === null ? 'redone' : 'redone-bounded' };
  }
  return { state: recomputeWalk(chain, stored, holds), how: 'recomputed' };
}
