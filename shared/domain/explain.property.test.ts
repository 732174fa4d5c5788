import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type TaskCondition, taskMismatch } from './conditions.js';
import { compareEventPositions, type EventPosition } from './counting.js';
import { type ExplainEvent, explainChain, type Verdict } from './explain.js';
import { referenceCompletions } from './progress.reference.test-helper.js';
import { chainArb, eventsArb } from './rules.arbitraries.test-helper.js';
import { type ChainRules, type Completion, computeCompletions } from './walk.js';

// Explain must never disagree with progress: for random chains, event sets and
// pending markers, its completions are progress's, and every verdict is a
// fact about progress (or about the raw conditions) checked here without
// explain's own code: the naive reference walk and plain comparisons.

const RUNS = 500;

const scenarioArb = fc.record({ chain: chainArb, events: eventsArb }).chain(({ chain, events }) =>
  fc
    .array(fc.boolean(), { minLength: events.length, maxLength: events.length })
    // Pending now and then, reversed now and then: most stored events have been processed and stand.
    .map((flags) => ({
      chain,
      events: events.map(
        (e, i): ExplainEvent => ({ ...e, pending: flags[i] === true && i % 3 === 0, reversed: flags[i] === true && i % 4 === 1 }),
      ),
    })),
);

/** Whether `task` is done in `progress` before the walk reaches `at`. */
const doneBefore = (progress: readonly Completion[], task: TaskCondition, at: EventPosition) => {
  const c = progress.find((p) => p.taskId === task.id);
  return c !== undefined && compareEventPositions({ occurredUs: c.completedUs, id: c.eventId }, at) < 0;
};

/** The fact about progress (the reference walk) or the raw conditions that each verdict claims. */
function verdictHolds(
  chain: ChainRules,
  progress: readonly Completion[],
  task: TaskCondition,
  e: ExplainEvent,
  verdict: Verdict,
): boolean {
  const inWindow = chain.startUs <= e.occurredUs && e.occurredUs < chain.endUs;
  switch (verdict) {
    case 'reversed':
      return e.reversed === true;
    case 'not_yet_processed':
      return e.pending && e.reversed !== true;
    case 'outside_chain_window':
      return !e.pending && !inWindow;
    case 'amount_missing':
      return task.minAmount !== null && e.amount === null;
    case 'amount_below_minimum':
      return task.minAmount !== null && e.amount !== null && e.amount < task.minAmount;
    case 'currency_mismatch':
      return task.currency !== null && (e.currency === null || e.currency.toUpperCase() !== task.currency.toUpperCase());
    case 'before_task_window':
      return task.afterUs !== null && e.occurredUs < task.afterUs;
    case 'after_task_window':
      return task.beforeUs !== null && e.occurredUs >= task.beforeUs;
    case 'used_by_other_task':
      return progress.some((c) => c.eventId === e.id && c.taskId !== task.id);
    case 'after_completion':
      return doneBefore(progress, task, e);
    case 'waiting_for_earlier_task':
      return (
        !chain.allowAnyOrder &&
        !doneBefore(progress, task, e) &&
        chain.tasks.some((t) => t.sequenceNumber < task.sequenceNumber && !doneBefore(progress, t, e))
      );
    case 'cap_reached':
      // Only a chain that shut the user out (max_completions) says it; these explanations are not of one.
      return false;
    case 'counted':
    case 'streak_broken':
    case 'outside_period':
      // Only counted, summed and streak tasks say these (quest-language.property.test.ts); these chains have none.
      return false;
  }
}

describe('explainChain for a user a full chain never admitted (max_completions)', () => {
  it('completes nothing, and says cap_reached for exactly the processed events the task would accept', () => {
    fc.assert(
      fc.property(scenarioArb, ({ chain, events }) => {
        const explained = explainChain(chain, events, Infinity, [], true);
        expect(explained.completions.size).toBe(0);
        for (const t of explained.tasks) {
          for (const c of t.candidates) {
            const e = c.event;
            const mismatch = taskMismatch(t.task, e);
            const accepted =
              e.reversed !== true &&
              !e.pending &&
              chain.startUs <= e.occurredUs &&
              e.occurredUs < chain.endUs &&
              (mismatch === null || mismatch === 'event_type_mismatch');
            expect({ verdict: c.verdict, accepted }).toEqual({ verdict: accepted ? 'cap_reached' : c.verdict, accepted });
            expect(c.verdict === 'cap_reached').toBe(accepted);
          }
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe('explainChain agrees with progress', () => {
  it('the generator reaches every verdict', () => {
    const seen = new Set<Verdict>();
    for (const { chain, events } of fc.sample(scenarioArb, { numRuns: 2000, seed: 7 })) {
      for (const t of explainChain(chain, events).tasks) for (const c of t.candidates) seen.add(c.verdict);
    }
    expect([...seen].sort()).toEqual([
      'after_completion',
      'after_task_window',
      'amount_below_minimum',
      'amount_missing',
      'before_task_window',
      'currency_mismatch',
      'not_yet_processed',
      'outside_chain_window',
      'reversed',
      'used_by_other_task',
      'waiting_for_earlier_task',
    ]);
  });

  it('completed_by is the completing event of progress over the processed events', () => {
    fc.assert(
      fc.property(scenarioArb, ({ chain, events }) => {
        const processed = events.filter((e) => !e.pending && e.reversed !== true);
        const explained = explainChain(chain, events);
        expect(explained.completions).toEqual(computeCompletions(chain, processed));
        const reference = referenceCompletions(chain, processed);
        for (const t of explained.tasks) {
          expect(t.completion).toEqual(reference.find((c) => c.taskId === t.task.id) ?? null);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("no candidate's verdict contradicts progress, and the candidates are the task's events latest first", () => {
    fc.assert(
      fc.property(scenarioArb, ({ chain, events }) => {
        const progress = referenceCompletions(
          chain,
          events.filter((e) => !e.pending && e.reversed !== true),
        );
        const explained = explainChain(chain, events, Infinity);
        for (const t of explained.tasks) {
          const expected = events
            .filter((e) => e.eventType === t.task.eventType && e.id !== t.completion?.eventId)
            .sort((a, b) => compareEventPositions(b, a));
          expect(t.candidates.map((c) => c.event.id)).toEqual(expected.map((e) => e.id));
          for (const c of t.candidates) {
            expect({ verdict: c.verdict, holds: verdictHolds(chain, progress, t.task, c.event, c.verdict) }).toEqual({
              verdict: c.verdict,
              holds: true,
            });
          }
        }
        // The published answer is the first ten of the same list.
        const published = explainChain(chain, events);
        for (const [i, t] of published.tasks.entries()) expect(t.candidates).toEqual(explained.tasks[i]!.candidates.slice(0, 10));
      }),
      { numRuns: RUNS },
    );
  });
});
