import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CountingEvent } from './conditions.js';
import { referenceCompletions } from './progress.reference.test-helper.js';
import { chainArb, eventsArb } from './rules.arbitraries.test-helper.js';
import type { Completion } from './walk.js';
import { computeCompletions } from './walk.js';

// Small domains (rules.arbitraries.test-helper.ts) so that ties, matches and
// near-misses are common; the generator check below keeps the properties from being vacuous.

const RUNS = 300;

/** The same event set, shuffled and with extra copies of some events. */
const permutedWithDuplicates = (events: CountingEvent[]): fc.Arbitrary<CountingEvent[]> =>
  fc.array(fc.nat({ max: Math.max(0, events.length - 1) }), { maxLength: events.length === 0 ? 0 : 8 }).chain((picks) => {
    const copies = picks.flatMap((i) => {
      const e = events[i];
      return e ? [{ ...e }] : [];
    });
    const all = [...events, ...copies];
    return fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length });
  });

const scenarioArb = fc.record({ chain: chainArb, events: eventsArb });

const normalise = (completions: Iterable<Completion>): Completion[] =>
  [...completions].sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));

describe('computeCompletions properties', () => {
  it('the generator yields completions, full chains and both chain kinds often enough', () => {
    const samples = fc.sample(scenarioArb, { numRuns: 1000, seed: 42 });
    let some = 0;
    let several = 0;
    let full = 0;
    let anyOrder = 0;
    for (const { chain, events } of samples) {
      const done = computeCompletions(chain, events).size;
      if (done >= 1) some++;
      if (done >= 2) several++;
      if (done === chain.tasks.length) full++;
      if (chain.allowAnyOrder) anyOrder++;
    }
    // Seeded, so stable: 537 / 234 / 138 when written.
    expect(some).toBeGreaterThan(450);
    expect(several).toBeGreaterThan(180);
    expect(full).toBeGreaterThan(100);
    expect(anyOrder).toBeGreaterThan(300);
    expect(anyOrder).toBeLessThan(700);
  });

  it('(a) depends only on the set of events, not on order or duplicates', () => {
    const arb = scenarioArb.chain((s) => permutedWithDuplicates(s.events).map((variant) => ({ ...s, variant })));
    fc.assert(
      fc.property(arb, ({ chain, events, variant }) => {
        expect(normalise(computeCompletions(chain, variant).values())).toEqual(
          normalise(computeCompletions(chain, events).values()),
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('(b) adding events never un-completes a task', () => {
    const arb = scenarioArb.chain((s) => fc.subarray(s.events).map((subset) => ({ ...s, subset })));
    fc.assert(
      fc.property(arb, ({ chain, events, subset }) => {
        const fromAll = computeCompletions(chain, events);
        for (const taskId of computeCompletions(chain, subset).keys()) {
          expect(fromAll.has(taskId)).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('(c) agrees with the naive reference implementation', () => {
    const arb = scenarioArb.chain((s) => permutedWithDuplicates(s.events).map((variant) => ({ ...s, variant })));
    fc.assert(
      fc.property(arb, ({ chain, variant }) => {
        expect(normalise(computeCompletions(chain, variant).values())).toEqual(normalise(referenceCompletions(chain, variant)));
      }),
      { numRuns: RUNS },
    );
  });

  it('uses each event at most once and, in ordered chains, completes a prefix', () => {
    fc.assert(
      fc.property(scenarioArb, ({ chain, events }) => {
        const completions = [...computeCompletions(chain, events).values()];
        expect(new Set(completions.map((c) => c.eventId)).size).toBe(completions.length);
        if (!chain.allowAnyOrder) {
          const prefix = [...chain.tasks]
            .sort((a, b) => a.sequenceNumber - b.sequenceNumber)
            .slice(0, completions.length)
            .map((t) => t.id);
          expect(completions.map((c) => c.taskId).sort()).toEqual(prefix.sort());
        }
      }),
      { numRuns: RUNS },
    );
  });
});
