import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CountingEvent, TaskCondition } from './conditions.js';
import { type ExplainEvent, explainChain } from './explain.js';
import { referenceQuestWalk, referenceRunName } from './quest-language.reference.test-helper.js';
import { mostlyNull } from './rules.arbitraries.test-helper.js';
import { eventsByRun, runRules } from './runs.js';
import { isAccumulating } from './tally.js';
import { advanceWalk, type ChainRules, type Completion, computeCompletions, recomputeWalk, type WalkState } from './walk.js';
import { workerStep } from './walk-step.test-helper.js';

// §16 (docs/quest-language.md) against an independent reading of it: counted,
// summed and streak tasks over events spread across days and weeks in a few
// time zones, with duplicates, any arrival order split into batches (the
// worker's loop: advance, else recompute) and reversals (a reversed event is
// no longer stored: the worker recomputes). Times are in quarter days, so
// streaks meet day and week boundaries, gaps and same-period repeats.

const SEED = 20_261_125;
const RUNS = 1_000;
const QUARTER_DAY_US = 21_600_000_000n;

const typeArb = fc.constantFrom('trade', 'deposit', 'login');
const currencyArb = fc.constantFrom('usd', 'USD', 'eur');
const amountArb = fc.integer({ min: 0, max: 20 }).map((n) => n / 4);
const timeArb = fc.integer({ min: -4, max: 60 }).map((q) => BigInt(q) * QUARTER_DAY_US + 1_000_000n);

const taskArb = fc.record({
  eventType: typeArb,
  minAmount: mostlyNull(amountArb),
  currency: mostlyNull(currencyArb),
  afterUs: mostlyNull(timeArb),
  beforeUs: fc.constant(null),
  minCount: fc.oneof({ weight: 1, arbitrary: fc.constant(1) }, { weight: 2, arbitrary: fc.integer({ min: 2, max: 4 }) }),
  minTotal: mostlyNull(fc.integer({ min: 1, max: 24 }).map((n) => n / 2)),
  streak: mostlyNull(
    fc.record({ periods: fc.integer({ min: 2, max: 4 }), every: fc.constantFrom('day' as const, 'week' as const) }),
  ),
});

const chainArb: fc.Arbitrary<ChainRules> = fc.integer({ min: 1, max: 4 }).chain((n) =>
  fc
    .record({
      allowAnyOrder: fc.boolean(),
      numbers: fc.uniqueArray(fc.integer({ min: 1, max: 9 }), { minLength: n, maxLength: n }),
      tasks: fc.array(taskArb, { minLength: n, maxLength: n }),
      startQ: fc.integer({ min: -4, max: 8 }),
      timezone: fc.constantFrom('UTC', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham'),
    })
    .map(({ allowAnyOrder, numbers, tasks, startQ, timezone }) => ({
      allowAnyOrder,
      timezone,
      startUs: BigInt(startQ) * QUARTER_DAY_US,
      endUs: 56n * QUARTER_DAY_US,
      tasks: numbers.map((sequenceNumber, i): TaskCondition => {
        const task = tasks[i]!;
        // A total needs a currency (the admin API refuses one without).
        return {
          id: `task-${i}`,
          sequenceNumber,
          ...task,
          currency: task.minTotal !== null ? (task.currency ?? 'usd') : task.currency,
        };
      }),
    })),
);

const eventArb: fc.Arbitrary<CountingEvent> = fc.record({
  id: fc.string({ unit: fc.constantFrom('a', 'B', 'c', '1'), minLength: 1, maxLength: 3 }),
  eventType: typeArb,
  occurredUs: timeArb,
  amount: fc.option(amountArb, { nil: null }),
  currency: fc.option(currencyArb, { nil: null }),
});

const scenarioArb = fc.record({
  chain: chainArb,
  events: fc.uniqueArray(eventArb, { selector: (e) => e.id, maxLength: 30, size: 'max' }),
  cuts: fc.array(fc.nat(), { maxLength: 5 }),
  shuffle: fc.array(fc.nat(), { minLength: 30, maxLength: 30 }),
  reversed: fc.array(fc.nat({ max: 29 }), { maxLength: 4 }),
});

const byTask = (completions: Iterable<Completion>) =>
  [...completions]
    .map((c) => ({ taskId: c.taskId, eventId: c.eventId, completedUs: c.completedUs }))
    .sort((a, b) => (a.taskId < b.taskId ? -1 : 1));

const talliesOf = (chain: ChainRules, state: WalkState) =>
  [...(state.tallies ?? new Map())]
    .filter(([taskId]) => isAccumulating(chain.tasks.find((t) => t.id === taskId)!))
    .map(([taskId, t]) => [taskId, t.count, t.totalMicros, t.streak] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : 1));

const referenceTallies = (chain: ChainRules, events: readonly CountingEvent[]) =>
  referenceQuestWalk(chain, events)
    .tallies.filter(([taskId]) => isAccumulating(chain.tasks.find((t) => t.id === taskId)!))
    .sort((a, b) => (a[0] < b[0] ? -1 : 1));

/** The events in a shuffled arrival order (with each one sent twice now and then), cut into batches. */
function arrivals(events: readonly CountingEvent[], shuffle: readonly number[], cuts: readonly number[]): CountingEvent[][] {
  const order = events
    .map((e, i) => ({ e, key: shuffle[i] ?? i }))
    .sort((a, b) => a.key - b.key)
    .map(({ e }) => e);
  const withRepeats = order.flatMap((e, i) => ((shuffle[i] ?? 0) % 5 === 0 ? [e, e] : [e]));
  const points = [...new Set(cuts.map((c) => c % (withRepeats.length + 1)))].sort((a, b) => a - b);
  const batches: CountingEvent[][] = [];
  let from = 0;
  for (const point of [...points, withRepeats.length]) {
    batches.push(withRepeats.slice(from, point));
    from = point;
  }
  return batches.filter((b) => b.length > 0);
}

/**
 * The batches as the matcher takes them: an event's pending row is claimed
 * by one batch, so an event is walked once; its repeats in later batches are
 * left out (ingest stores a repeat once, and a redelivered job finds its
 * rows gone). Repeats inside one batch stay (the walk keeps one copy).
 */
function claimedOnce(batches: readonly CountingEvent[][]): CountingEvent[][] {
  const claimed = new Set<string>();
  return batches
    .map((batch) => {
      const fresh = batch.filter((e) => !claimed.has(e.id));
      for (const e of batch) claimed.add(e.id);
      return fresh;
    })
    .filter((batch) => batch.length > 0);
}

describe('§16 counted, summed and streak tasks', () => {
  it('the generator makes counted, summed and streak completions, in both chain kinds', () => {
    const seen = { counted: 0, summed: 0, streak: 0, anyOrder: 0, ordered: 0 };
    fc.assert(
      fc.property(scenarioArb, ({ chain, events }) => {
        for (const c of computeCompletions(chain, events).values()) {
          const task = chain.tasks.find((t) => t.id === c.taskId)!;
          if ((task.minCount ?? 1) > 1) seen.counted++;
          if (task.minTotal != null) seen.summed++;
          if (task.streak != null) seen.streak++;
          if (isAccumulating(task)) seen[chain.allowAnyOrder ? 'anyOrder' : 'ordered']++;
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
    for (const [kind, count] of Object.entries(seen)) expect(count, kind).toBeGreaterThan(20);
  });

  it('the full walk equals the reference: completions, and every tally', () => {
    fc.assert(
      fc.property(scenarioArb, ({ chain, events }) => {
        const state = recomputeWalk(chain, events);
        expect(byTask(state.completions.values())).toEqual(byTask(referenceQuestWalk(chain, events).completions));
        expect(talliesOf(chain, state)).toEqual(referenceTallies(chain, events));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('the worker loop redoes late events over a window in both chain kinds (open walks, and complete ones up to their last completion)', () => {
    const how = { ordered: { redone: 0, 'redone-bounded': 0 }, anyOrder: { redone: 0, 'redone-bounded': 0 } };
    for (const { chain, events, shuffle, cuts } of fc.sample(scenarioArb, { seed: SEED, numRuns: RUNS })) {
      if (!chain.tasks.some(isAccumulating)) continue;
      let state: WalkState = { completions: new Map(), mark: null };
      const stored: CountingEvent[] = [];
      for (const batch of arrivals(events, shuffle, cuts)) {
        stored.push(...batch);
        const step = workerStep(chain, state, advanceWalk(chain, state, batch), stored);
        if (step.how === 'redone' || step.how === 'redone-bounded') how[chain.allowAnyOrder ? 'anyOrder' : 'ordered'][step.how]++;
        state = step.state;
      }
    }
    // Seeded, so stable: ordered 176 open and 13 complete, any order 291 and 21, when written.
    for (const [kind, counts] of Object.entries(how))
      for (const [path, count] of Object.entries(counts)) expect(count, `${kind} ${path}`).toBeGreaterThan(8);
  });

  it('any arrival order, duplicates and batching give the same result as the full walk (the worker loop: advance, else redo or recompute)', () => {
    fc.assert(
      fc.property(scenarioArb, ({ chain, events, shuffle, cuts }) => {
        let state: WalkState = { completions: new Map(), mark: null };
        const stored: CountingEvent[] = [];
        for (const batch of arrivals(events, shuffle, cuts)) {
          stored.push(...batch);
          state = workerStep(chain, state, advanceWalk(chain, state, batch), stored).state;
        }
        expect(byTask(state.completions.values())).toEqual(byTask(referenceQuestWalk(chain, events).completions));
        // A complete chain's walk stops: tallies need only match while it is open.
        if (state.completions.size < chain.tasks.length) expect(talliesOf(chain, state)).toEqual(referenceTallies(chain, events));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('each event walked once, late events added to the tally of a task they leave open instead of redone: the same result as the full walk, with every kind of task absorbing', () => {
    const absorbed = { countedOrSummed: 0, streak: 0, anyOrder: 0, ordered: 0, redoneAnyway: 0 };
    fc.assert(
      fc.property(scenarioArb, ({ chain, events, shuffle, cuts }) => {
        let state: WalkState = { completions: new Map(), mark: null };
        const stored: CountingEvent[] = [];
        for (const batch of claimedOnce(arrivals(events, shuffle, cuts))) {
          stored.push(...batch);
          const result = advanceWalk(chain, state, batch, { absorbLate: true });
          const without = advanceWalk(chain, state, batch);
          if ('recompute' in without && !('recompute' in result)) {
            absorbed[chain.tasks.some((t) => t.streak != null) ? 'streak' : 'countedOrSummed']++;
            absorbed[chain.allowAnyOrder ? 'anyOrder' : 'ordered']++;
          } else if ('recompute' in without) absorbed.redoneAnyway++;
          state = workerStep(chain, state, result, stored).state;
        }
        expect(byTask(state.completions.values())).toEqual(byTask(referenceQuestWalk(chain, events).completions));
        if (state.completions.size < chain.tasks.length) expect(talliesOf(chain, state)).toEqual(referenceTallies(chain, events));
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Seeded, so stable; the redo stays for late events that move a completion.
    for (const [kind, count] of Object.entries(absorbed)) expect(count, kind).toBeGreaterThan(20);
  });

  it('a reversal takes the event back: the recompute equals the reference over the events that still stand', () => {
    fc.assert(
      fc.property(scenarioArb, ({ chain, events, reversed }) => {
        const taken = new Set(reversed.map((i) => events[i]?.id));
        const standing = events.filter((e) => !taken.has(e.id));
        const state = recomputeWalk(chain, standing);
        expect(byTask(state.completions.values())).toEqual(byTask(referenceQuestWalk(chain, standing).completions));
        expect(talliesOf(chain, state)).toEqual(referenceTallies(chain, standing));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('explain says counted (with the running count) for exactly the events the reference counted toward the task without completing it', () => {
    fc.assert(
      fc.property(scenarioArb, ({ chain, events }) => {
        const reference = referenceQuestWalk(chain, events);
        const explained = explainChain(
          chain,
          events.map((e): ExplainEvent => ({ ...e, pending: false })),
          Infinity,
        );
        for (const { task, candidates } of explained.tasks) {
          const countedHere = reference.counted.filter(([, taskId]) => taskId === task.id).map(([eventId]) => eventId);
          for (const { event, verdict, tally } of candidates) {
            const isCounted = verdict === 'counted' || verdict === 'streak_broken';
            expect(isCounted, `${event.id} ${verdict}`).toBe(countedHere.includes(event.id));
            if (isCounted) expect(tally!.count).toBe(countedHere.indexOf(event.id) + 1);
            if (verdict === 'used_by_other_task')
              expect(reference.counted.some(([eventId, taskId]) => eventId === event.id && taskId !== task.id)).toBe(true);
          }
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

// Repeating chains: the same scenarios moved to late January 2026 (so months
// end inside them) with a recurrence; each run is walked on its own.
const BASE_US = BigInt(Date.parse('2026-01-24T00:00:00Z')) * 1000n;
const repeatingArb = fc
  .record({ scenario: scenarioArb, every: fc.constantFrom('day' as const, 'week' as const, 'month' as const) })
  .map(({ scenario, every }) => {
    const { chain, events } = scenario;
    const moved: ChainRules = {
      ...chain,
      startUs: chain.startUs + BASE_US,
      endUs: chain.endUs + BASE_US,
      recurrence: { every, timezone: chain.timezone ?? 'UTC' },
      tasks: chain.tasks.map((task) => ({ ...task, afterUs: task.afterUs === null ? null : task.afterUs + BASE_US })),
    };
    return { ...scenario, chain: moved, events: events.map((e) => ({ ...e, occurredUs: e.occurredUs + BASE_US })) };
  });

/** The reference over a repeating chain: its events grouped by run name, each group walked as a chain of its own. */
function referenceRuns(chain: ChainRules, events: readonly CountingEvent[]) {
  const groups = new Map<string, CountingEvent[]>();
  for (const e of events) {
    if (e.occurredUs < chain.startUs || e.occurredUs >= chain.endUs) continue;
    const name = referenceRunName(e.occurredUs, chain.recurrence!.every, chain.recurrence!.timezone);
    groups.set(name, [...(groups.get(name) ?? []), e]);
  }
  const plain = { ...chain, recurrence: null };
  return [...groups.values()].flatMap((group) => referenceQuestWalk(plain, group).completions);
}

describe('§16 repeating chains', () => {
  it('the generator makes several runs, and completions in more than one run of a chain', () => {
    let severalRuns = 0;
    let completedTwice = 0;
    fc.assert(
      fc.property(repeatingArb, ({ chain, events }) => {
        const runs = eventsByRun(chain, events);
        if (runs.size > 1) severalRuns++;
        const completing = [...runs].filter(([runStart, list]) => computeCompletions(runRules(chain, runStart)!, list).size > 0);
        if (completing.length > 1) completedTwice++;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect(severalRuns).toBeGreaterThan(RUNS / 2);
    expect(completedTwice).toBeGreaterThan(50);
  });

  it("each run, walked by the worker loop over any arrival order, equals the reference over that run's events", () => {
    fc.assert(
      fc.property(repeatingArb, ({ chain, events, shuffle, cuts }) => {
        const states = new Map<bigint, WalkState>();
        const stored: CountingEvent[] = [];
        for (const batch of arrivals(events, shuffle, cuts)) {
          stored.push(...batch);
          for (const [runStart, list] of eventsByRun(chain, batch)) {
            const rules = runRules(chain, runStart)!;
            const state = states.get(runStart) ?? { completions: new Map(), mark: null };
            states.set(runStart, workerStep(rules, state, advanceWalk(rules, state, list), stored).state);
          }
        }
        const all = [...states.values()].flatMap((state) => [...state.completions.values()]);
        expect(byTask(all).sort((a, b) => (a.eventId < b.eventId ? -1 : 1))).toEqual(
          byTask(referenceRuns(chain, events)).sort((a, b) => (a.eventId < b.eventId ? -1 : 1)),
        );
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("each run, its events walked once with late ones absorbed where exact, equals the reference over that run's events", () => {
    fc.assert(
      fc.property(repeatingArb, ({ chain, events, shuffle, cuts }) => {
        const states = new Map<bigint, WalkState>();
        const stored: CountingEvent[] = [];
        for (const batch of claimedOnce(arrivals(events, shuffle, cuts))) {
          stored.push(...batch);
          for (const [runStart, list] of eventsByRun(chain, batch)) {
            const rules = runRules(chain, runStart)!;
            const state = states.get(runStart) ?? { completions: new Map(), mark: null };
            states.set(runStart, workerStep(rules, state, advanceWalk(rules, state, list, { absorbLate: true }), stored).state);
          }
        }
        const all = [...states.values()].flatMap((state) => [...state.completions.values()]);
        expect(byTask(all).sort((a, b) => (a.eventId < b.eventId ? -1 : 1))).toEqual(
          byTask(referenceRuns(chain, events)).sort((a, b) => (a.eventId < b.eventId ? -1 : 1)),
        );
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

describe('§16 worked examples', () => {
  const DAY = 86_400_000_000n;
  const task = (fields: Partial<TaskCondition>): TaskCondition => ({
    id: 't1',
    sequenceNumber: 1,
    eventType: 'trade',
    minAmount: null,
    currency: null,
    afterUs: null,
    beforeUs: null,
    ...fields,
  });
  const chainOf = (tasks: TaskCondition[], timezone = 'UTC'): ChainRules => ({
    allowAnyOrder: false,
    startUs: 0n,
    endUs: 400n * DAY,
    tasks,
    timezone,
  });
  const ev = (
    id: string,
    occurredUs: bigint,
    amount: number | null = null,
    currency: string | null = null,
    eventType = 'trade',
  ): CountingEvent => ({ id, eventType, occurredUs, amount, currency });

  it('"make 3 trades" completes at the third', () => {
    const done = computeCompletions(chainOf([task({ minCount: 3 })]), [ev('a', 1n), ev('b', 2n), ev('c', 3n), ev('d', 4n)]);
    expect(done.get('t1')?.eventId).toBe('c');
  });

  it('"deposit 500 USD in total" sums amounts to the event that reaches it, and 0.7 + 0.1 meets 0.8', () => {
    const deposits = chainOf([task({ eventType: 'deposit', minTotal: 500, currency: 'USD' })]);
    const done = computeCompletions(deposits, [
      ev('a', 1n, 200, 'usd', 'deposit'),
      ev('b', 2n, 250, 'EUR', 'deposit'),
      ev('c', 3n, 300, 'USD', 'deposit'),
    ]);
    expect(done.get('t1')?.eventId).toBe('c');
    const cents = chainOf([task({ eventType: 'deposit', minTotal: 0.8, currency: 'USD' })]);
    expect(
      computeCompletions(cents, [ev('a', 1n, 0.7, 'USD', 'deposit'), ev('b', 2n, 0.1, 'USD', 'deposit')]).get('t1')?.eventId,
    ).toBe('b');
  });

  it('"log in 3 days in a row" resets on a missed day, counts a day once, and reads days in the chain\'s time zone', () => {
    const streak = task({ eventType: 'login', streak: { periods: 3, every: 'day' } });
    const login = (id: string, us: bigint) => ev(id, us, null, null, 'login');
    const broken = [
      login('a', 10n * DAY),
      login('b', 11n * DAY),
      login('c', 13n * DAY),
      login('d', 13n * DAY + 5n),
      login('e', 14n * DAY),
      login('f', 15n * DAY),
    ];
    expect(computeCompletions(chainOf([streak]), broken).get('t1')?.eventId).toBe('f');
    // 23:30 UTC on day 10 is already day 11 in Berlin (UTC+1 in winter): three Berlin days, two UTC days.
    const late = [
      login('a', 10n * DAY - 3_600_000_000n),
      login('b', 10n * DAY + 23n * 3_600_000_000n + 1_800_000_000n),
      login('c', 12n * DAY + 1n),
    ];
    expect(computeCompletions(chainOf([streak], 'Europe/Berlin'), late).get('t1')?.eventId).toBe('c');
    expect(computeCompletions(chainOf([streak], 'UTC'), late).has('t1')).toBe(false);
  });

  it('an ordered chain counts toward the next task only events after the previous one completed', () => {
    const chain = chainOf([task({ minCount: 2 }), task({ id: 't2', sequenceNumber: 2, minCount: 2 })]);
    const done = computeCompletions(chain, [ev('a', 1n), ev('b', 2n), ev('c', 3n), ev('d', 4n)]);
    expect(done.get('t1')?.eventId).toBe('b');
    expect(done.get('t2')?.eventId).toBe('d');
  });
});
