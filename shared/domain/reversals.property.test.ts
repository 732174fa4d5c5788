import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CountingEvent } from './conditions.js';
import { compareEventPositions } from './counting.js';
import { referenceCompletions } from './progress.reference.test-helper.js';
import { chainArb, eventsArb } from './rules.arbitraries.test-helper.js';
import {
  advanceWalk,
  type ChainRules,
  type Completion,
  computeCompletions,
  type Hold,
  lastCompletion,
  recomputeWalk,
  type WalkState,
} from './walk.js';
import { workerStep } from './walk-step.test-helper.js';

// Reversals and claims (docs/reversals.md) at the walk's level: the worker's
// loop (advance when it can, recompute with the holds when it must, recompute
// on a reversal of an event that completed something, and only then) against the full walk over the events that stand, with
// every claim's hold. And the walk without holds is the §5 reference walk over
// the standing events: a reversed event counts for nothing.

const SEED = 20_261_125;
const RUNS = 1_000;

type Op = { kind: 'deliver'; picks: number[] } | { kind: 'reverse'; pick: number } | { kind: 'claim'; pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('deliver' as const),
      picks: fc.array(fc.nat({ max: 15 }), { minLength: 1, maxLength: 5 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reverse' as const), pick: fc.nat({ max: 15 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('claim' as const), pick: fc.nat({ max: 5 }) }) },
);

const scenarioArb = fc.record({
  chain: chainArb,
  events: eventsArb.filter((e) => e.length > 0),
  ops: fc.array(opArb, { minLength: 1, maxLength: 14 }),
});

const byTask = (completions: Iterable<Completion>) =>
  [...completions].sort((a, b) => (a.taskId < b.taskId ? -1 : 1)).map((c) => ({ ...c, held: c.held === true }));

/** Runs the ops as the worker and the claim route do; yields the state, the model and the claims after each op. */
function* simulate(chain: ChainRules, events: readonly CountingEvent[], ops: readonly Op[]) {
  let state: WalkState = { completions: new Map(), mark: null };
  const stored = new Map<string, CountingEvent>();
  const reversed = new Set<string>();
  const holds: Hold[] = [];
  const standing = () => [...stored.values()].filter((e) => !reversed.has(e.id));
  for (const op of ops) {
    if (op.kind === 'deliver') {
      const batch = op.picks.map((i) => events[i % events.length]!);
      for (const e of batch) stored.set(e.id, e);
      const result = advanceWalk(
        chain,
        state,
        batch.filter((e) => !reversed.has(e.id)),
      );
      state = workerStep(chain, state, result, standing(), holds).state;
    } else if (op.kind === 'reverse') {
      const target = [...stored.keys()][op.pick % Math.max(1, stored.size)];
      if (target === undefined) continue;
      reversed.add(target);
      // As the reversal route decides: only a walk with a completion made by the event is redone.
      // Any other walk passed over it, and keeps its state (its mark may stay on the event).
      if ([...state.completions.values()].some((c) => c.eventId === target)) state = recomputeWalk(chain, standing(), holds);
    } else {
      // A claim of a completed, unclaimed task records where its completion stands.
      const open = [...state.completions.values()].filter((c) => !holds.some((h) => h.taskId === c.taskId));
      const claimed = open[op.pick % Math.max(1, open.length)];
      if (claimed === undefined) continue;
      holds.push({ taskId: claimed.taskId, at: { occurredUs: claimed.completedUs, id: claimed.eventId }, kind: 'claim' });
    }
    yield { state, model: recomputeWalk(chain, standing(), holds), holds: [...holds], standing: standing() };
  }
}

describe('reversals and claims in the walk', () => {
  it('the worker loop equals the full walk over the standing events with every hold, after every step', () => {
    fc.assert(
      fc.property(scenarioArb, ({ chain, events, ops }) => {
        for (const { state, model } of simulate(chain, events, ops)) {
          expect(byTask(state.completions.values())).toEqual(byTask(model.completions.values()));
          // A mark left on a reversed event is later than the model's: safe, events before it are only looked at twice.
          // A complete walk's mark stops at or after its last completion (nothing later can change it).
          const complete = state.completions.size === chain.tasks.length;
          const floor = complete ? lastCompletion(state.completions) : model.mark;
          if (floor !== null) expect(state.mark !== null && compareEventPositions(state.mark, floor) >= 0).toBe(true);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('a claimed task stays completed whatever is reversed; held only when its events no longer complete it', () => {
    fc.assert(
      fc.property(scenarioArb, ({ chain, events, ops }) => {
        for (const { state, holds, standing } of simulate(chain, events, ops)) {
          for (const hold of holds) expect(state.completions.has(hold.taskId)).toBe(true);
          for (const completion of state.completions.values()) {
            if (completion.held === true) expect(holds.some((h) => h.taskId === completion.taskId)).toBe(true);
          }
          // Without claims, progress is the §5 reference walk over the standing events.
          if (holds.length === 0) {
            expect(byTask(state.completions.values()).map(({ held: _held, ...c }) => c)).toEqual(
              referenceCompletions(chain, standing).sort((a, b) => (a.taskId < b.taskId ? -1 : 1)),
            );
          }
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('the generator reaches reversals that undo completions, and claims that end up held', () => {
    let undone = 0;
    let held = 0;
    for (const { chain, events, ops } of fc.sample(scenarioArb, { numRuns: 500, seed: SEED })) {
      let before = 0;
      for (const { state } of simulate(chain, events, ops)) {
        if (state.completions.size < before) undone++;
        if ([...state.completions.values()].some((c) => c.held === true)) held++;
        before = state.completions.size;
      }
    }
    expect(undone).toBeGreaterThan(20);
    expect(held).toBeGreaterThan(20);
  });

  it('computeCompletions with holds is recomputeWalk with holds', () => {
    fc.assert(
      fc.property(scenarioArb, ({ chain, events, ops }) => {
        for (const { holds, standing, model } of simulate(chain, events, ops)) {
          expect(byTask(computeCompletions(chain, standing, undefined, holds).values())).toEqual(
            byTask(model.completions.values()),
          );
        }
      }),
      { numRuns: 200, seed: SEED },
    );
  });

  it('sees an event before a hold as late: it completes the held task for real', () => {
    const chain: ChainRules = {
      allowAnyOrder: false,
      startUs: 0n,
      endUs: 10n,
      tasks: [1, 2].map((n) => ({
        id: `task-${n}`,
        sequenceNumber: n,
        eventType: 'reg',
        minAmount: null,
        currency: null,
        afterUs: null,
        beforeUs: null,
      })),
    };
    const event = (id: string, occurredUs: bigint): CountingEvent => ({
      id,
      eventType: 'reg',
      occurredUs,
      amount: null,
      currency: null,
    });
    const [e1, e3] = [event('e1', 1n), event('e3', 3n)];
    // task-2 claimed at e5, then e5 reversed: held from e5's position, the mark with it.
    const holds: Hold[] = [{ taskId: 'task-2', at: { occurredUs: 5n, id: 'e5' }, kind: 'claim' }];
    const afterReversal = recomputeWalk(chain, [e1], holds);
    expect(afterReversal.mark).toEqual({ occurredUs: 5n, id: 'e5' });
    expect(afterReversal.completions.get('task-2')).toMatchObject({ held: true });
    const next = advanceWalk(chain, afterReversal, [e3]);
    const state = 'recompute' in next ? recomputeWalk(chain, [e1, e3], holds) : next.state;
    expect(state.completions.get('task-2')).toEqual({ taskId: 'task-2', eventId: 'e3', completedUs: 3n });
  });
});
