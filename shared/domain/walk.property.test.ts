import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CountingEvent, TaskCondition } from './conditions.js';
import { inChainWindow, taskMatches } from './conditions.js';
import type { EventPosition } from './counting.js';
import { compareEventPositions } from './counting.js';
import { referenceCompletions } from './progress.reference.test-helper.js';
import { mostlyNull } from './rules.arbitraries.test-helper.js';
import type { ChainRules, Completion, WalkState } from './walk.js';
import { advanceWalk, computeCompletions, isRelevant, lastCompletion, recomputeWalk } from './walk.js';
import { workerStep } from './walk-step.test-helper.js';

// The incremental walk must be indistinguishable from recomputing over every
// stored event, however the events arrive. Small domains (3 types, times
// 0..9, 3-letter ids) make timestamp ties, matches, near-misses, late events
// and events passed over common; the generator check keeps that true.

const SEED = 20_240_517;
const RUNS = 1_000;

const eventTypeArb = fc.constantFrom('reg', 'kyc', 'tx');
const amountArb = fc.integer({ min: 0, max: 8 });
const currencyArb = fc.constantFrom('usd', 'USD', 'eur');

const conditionArb = fc.record({
  eventType: eventTypeArb,
  minAmount: mostlyNull(amountArb),
  currency: mostlyNull(currencyArb),
  afterUs: mostlyNull(fc.bigInt({ min: 0n, max: 6n })),
  beforeUs: mostlyNull(fc.bigInt({ min: 3n, max: 10n })),
});

const chainArb: fc.Arbitrary<ChainRules> = fc.integer({ min: 1, max: 5 }).chain((n) =>
  fc
    .record({
      allowAnyOrder: fc.boolean(),
      sequenceNumbers: fc.uniqueArray(fc.integer({ min: 1, max: 9 }), { minLength: n, maxLength: n }),
      conditions: fc.array(conditionArb, { minLength: n, maxLength: n }),
      startUs: fc.bigInt({ min: 0n, max: 2n }),
      endUs: fc.bigInt({ min: 6n, max: 10n }),
    })
    .map(({ allowAnyOrder, sequenceNumbers, conditions, startUs, endUs }) => ({
      allowAnyOrder,
      startUs,
      endUs,
      tasks: sequenceNumbers.map(
        (sequenceNumber, i): TaskCondition => ({
          id: `task-${i}`,
          sequenceNumber,
          ...(conditions[i] ?? { eventType: 'reg', minAmount: null, currency: null, afterUs: null, beforeUs: null }),
        }),
      ),
    })),
);

const eventArb: fc.Arbitrary<CountingEvent> = fc.record({
  // Mixed case so code-unit order (B < a) differs from locale order.
  id: fc.string({ unit: fc.constantFrom('a', 'B', 'c', '1'), minLength: 1, maxLength: 3 }),
  eventType: eventTypeArb,
  occurredUs: fc.bigInt({ min: 0n, max: 9n }),
  amount: fc.option(amountArb, { nil: null }),
  currency: fc.option(currencyArb, { nil: null }),
});

// Distinct stored events: one id is one event.
const eventsArb = fc.uniqueArray(eventArb, { selector: (e) => e.id, minLength: 1, maxLength: 14 });

const BATCHES = 5;

/**
 * A delivery of the event set: each event in a random batch, plus copies
 * re-sent in random batches (before, with or after the original), each batch
 * in random order. Every event is delivered at least once.
 */
const deliveryArb = (events: CountingEvent[]): fc.Arbitrary<CountingEvent[][]> =>
  fc
    .record({
      batchOf: fc.array(fc.nat({ max: BATCHES - 1 }), { minLength: events.length, maxLength: events.length }),
      resends: fc.array(fc.record({ pick: fc.nat({ max: events.length - 1 }), batch: fc.nat({ max: BATCHES - 1 }) }), {
        maxLength: 8,
      }),
    })
    .chain(({ batchOf, resends }) => {
      const items = [
        ...events.map((event, i) => ({ event, batch: batchOf[i] ?? 0 })),
        ...resends.flatMap(({ pick, batch }) => {
          const event = events[pick];
          return event ? [{ event: { ...event }, batch }] : [];
        }),
      ];
      return fc.shuffledSubarray(items, { minLength: items.length, maxLength: items.length });
    })
    .map((items) =>
      Array.from({ length: BATCHES }, (_, b) => items.filter((item) => item.batch === b).map((item) => item.event)),
    );

const scenarioArb = fc
  .record({ chain: chainArb, events: eventsArb })
  .chain((s) => deliveryArb(s.events).map((batches) => ({ ...s, batches })));

const byTask = (completions: Iterable<Completion>): Completion[] =>
  [...completions].sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));

/** The expected mark, from the primitives: the latest stored event in the window that some task matches. */
function expectedMark(chain: ChainRules, stored: readonly CountingEvent[]): EventPosition | null {
  let mark: EventPosition | null = null;
  for (const e of stored) {
    if (!inChainWindow(chain, e) || !chain.tasks.some((t) => taskMatches(t, e))) continue;
    if (mark === null || compareEventPositions(e, mark) > 0) mark = { occurredUs: e.occurredUs, id: e.id };
  }
  return mark;
}

/**
 * The walk's mark against the stored events: the latest relevant one; once
 * every task is completed, anywhere from the last completion up to it (a
 * complete walk's mark stops: nothing after its last completion can change it).
 */
function expectMark(chain: ChainRules, state: WalkState, stored: readonly CountingEvent[]) {
  const latest = expectedMark(chain, stored);
  if (state.completions.size < chain.tasks.length) return expect(state.mark).toEqual(latest);
  expect(state.mark).not.toBeNull();
  expect(compareEventPositions(state.mark!, lastCompletion(state.completions)!)).toBeGreaterThanOrEqual(0);
  expect(compareEventPositions(state.mark!, latest!)).toBeLessThanOrEqual(0);
}

/** The worker's loop: advance when possible, else recompute over everything stored. */
function* simulate(chain: ChainRules, batches: CountingEvent[][]) {
  let state: WalkState = { completions: new Map(), mark: null };
  const stored: CountingEvent[] = [];
  for (const batch of batches) {
    stored.push(...batch);
    const before = state;
    const result = advanceWalk(chain, state, batch);
    const step = workerStep(chain, state, result, stored);
    state = step.state;
    const mark = before.mark;
    const late =
      mark !== null && batch.some((e) => e.id !== mark.id && isRelevant(chain, e) && compareEventPositions(e, mark) < 0);
    yield {
      before,
      state,
      stored,
      late,
      recomputed: 'recompute' in result,
      how: step.how,
      changed: !('recompute' in result) && result.changed,
    };
  }
}

describe('incremental walk properties', () => {
  it('the generator exercises late events (recomputed, and passed over in the final state), late events behind a passed-over mark, incremental completions and full chains', () => {
    let recomputes = 0;
    let lateWithoutRecompute = 0;
    let lateBehindPassedOver = 0;
    let incrementalCompletions = 0;
    let full = 0;
    const how = { advanced: 0, redone: 0, 'redone-bounded': 0, recomputed: 0 };
    for (const { chain, batches } of fc.sample(scenarioArb, { numRuns: RUNS, seed: SEED })) {
      for (const step of simulate(chain, batches)) {
        how[step.how]++;
        if (step.recomputed) recomputes++;
        if (step.late && !step.recomputed) lateWithoutRecompute++;
        if (step.changed) incrementalCompletions++;
        // The case a mark of completing events only would get wrong.
        const completing = new Set([...step.before.completions.values()].map((c) => c.eventId));
        if (step.recomputed && step.before.mark !== null && !completing.has(step.before.mark.id)) lateBehindPassedOver++;
      }
      if (computeCompletions(chain, batches.flat()).size === chain.tasks.length) full++;
    }
    // Seeded, so stable: 592 / 167 / 263 / 619 / 164 when written (batch steps, except the last count).
    expect(recomputes).toBeGreaterThan(450);
    expect(lateWithoutRecompute).toBeGreaterThan(120);
    expect(lateBehindPassedOver).toBeGreaterThan(200);
    expect(incrementalCompletions).toBeGreaterThan(500);
    expect(full).toBeGreaterThan(120);
    // Redone from the first late event: with no end, and up to a complete walk's last completion.
    // (No bounded redo here ended incomplete, so none fell back to the full recompute: walk.test.ts covers that answer.)
    expect(how.redone).toBeGreaterThan(150);
    expect(how['redone-bounded']).toBeGreaterThan(30);
  });

  it('after every batch, equals the full recompute over everything stored, with the latest relevant event as mark (a complete walk: from its last completion on)', () => {
    fc.assert(
      fc.property(scenarioArb, ({ chain, batches }) => {
        for (const { state, stored } of simulate(chain, batches)) {
          expect(byTask(state.completions.values())).toEqual(byTask(computeCompletions(chain, stored).values()));
          expect(byTask(state.completions.values())).toEqual(byTask(referenceCompletions(chain, stored)));
          expectMark(chain, state, stored);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('never recomputes for a batch after the walked prefix (with the mark and irrelevant old events re-sent)', () => {
    const arb = fc.record({ chain: chainArb, events: eventsArb }).chain((s) => {
      const sorted = [...s.events].sort(compareEventPositions);
      return fc
        .record({
          cut: fc.nat({ max: sorted.length }),
          resendOld: fc.boolean(),
          order: fc.shuffledSubarray(sorted, { minLength: sorted.length, maxLength: sorted.length }),
        })
        .map(({ cut, resendOld, order }) => {
          const prefix = sorted.slice(0, cut);
          const oldIds = new Set(prefix.map((e) => e.id));
          const mark = expectedMark(s.chain, prefix);
          // Old events the walk may be sent again: its mark, and events no task of the chain can use.
          const resent = resendOld ? prefix.filter((e) => e.id === mark?.id || expectedMark(s.chain, [e]) === null) : [];
          return { ...s, prefix, batch: [...order.filter((e) => !oldIds.has(e.id)), ...resent] };
        });
    });
    fc.assert(
      fc.property(arb, ({ chain, events, prefix, batch }) => {
        const result = advanceWalk(chain, recomputeWalk(chain, prefix), batch);
        if ('recompute' in result) throw new Error('recomputed for a batch after the mark');
        const full = recomputeWalk(chain, events);
        expect(byTask(result.state.completions.values())).toEqual(byTask(full.completions.values()));
        expectMark(chain, result.state, events);
        expect(result.changed).toBe(full.completions.size > recomputeWalk(chain, prefix).completions.size);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
