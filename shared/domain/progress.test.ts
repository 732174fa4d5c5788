import { describe, expect, it } from 'vitest';
import type { CountingEvent } from './conditions.js';
import { chain, ev, task } from './rules.test-helper.js';
import type { ChainRules } from './walk.js';
import { computeCompletions } from './walk.js';

// Compact view of the result: taskId -> eventId@time.
const summary = (rules: ChainRules, events: CountingEvent[]): Record<string, string> =>
  Object.fromEntries([...computeCompletions(rules, events).values()].map((c) => [c.taskId, `${c.eventId}@${c.completedUs}`]));

const threeSteps = [task(1, 'registration'), task(2, 'kyc'), task(3, 'transaction', { minAmount: 10 })];

describe('computeCompletions: ordered chains', () => {
  it('completes tasks in sequence', () => {
    const events = [ev('a', 'registration', 1n), ev('b', 'kyc', 2n), ev('c', 'transaction', 3n, { amount: 10 })];
    expect(summary(chain(threeSteps), events)).toEqual({ t1: 'a@1', t2: 'b@2', t3: 'c@3' });
  });

  it('passes over an event that matches a later task, even if nothing else comes', () => {
    // kyc arrives before registration: it is passed over, so t2 stays open.
    const events = [ev('k', 'kyc', 1n), ev('r', 'registration', 2n)];
    expect(summary(chain(threeSteps), events)).toEqual({ t1: 'r@2' });
  });

  it('uses a later repeat of the passed-over event type', () => {
    const events = [ev('k1', 'kyc', 1n), ev('r', 'registration', 2n), ev('k2', 'kyc', 3n)];
    expect(summary(chain(threeSteps), events)).toEqual({ t1: 'r@2', t2: 'k2@3' });
  });

  it('does not let one event complete two tasks', () => {
    const rules = chain([task(1, 'transaction'), task(2, 'transaction')]);
    expect(summary(rules, [ev('x', 'transaction', 5n)])).toEqual({ t1: 'x@5' });
  });

  it('completes the chain when events are delivered in reverse order', () => {
    const inOrder = [ev('a', 'registration', 1n), ev('b', 'kyc', 2n), ev('c', 'transaction', 3n, { amount: 99 })];
    const reversed = [...inOrder].reverse();
    expect(summary(chain(threeSteps), reversed)).toEqual({ t1: 'a@1', t2: 'b@2', t3: 'c@3' });
  });

  it('walks tasks by sequence number, not input order, with numeric comparison', () => {
    const rules = chain([task(10, 'b'), task(9, 'a')]); // '10' < '9' as strings
    expect(summary(rules, [ev('x', 'a', 1n), ev('y', 'b', 2n)])).toEqual({ t9: 'x@1', t10: 'y@2' });
  });

  it('breaks timestamp ties by event id as plain string order', () => {
    // Both match t1 at the same instant; 'B' < 'a' in code-unit order.
    const rules = chain([task(1, 'x'), task(2, 'x')]);
    expect(summary(rules, [ev('a', 'x', 7n), ev('B', 'x', 7n)])).toEqual({ t1: 'B@7', t2: 'a@7' });
  });

  it('ignores duplicate copies of an event', () => {
    const rules = chain([task(1, 'x'), task(2, 'x')]);
    const e = ev('same', 'x', 3n);
    expect(summary(rules, [e, { ...e }, { ...e }])).toEqual({ t1: 'same@3' });
  });

  it('returns nothing for no events', () => {
    expect(computeCompletions(chain(threeSteps), []).size).toBe(0);
  });
});

describe('computeCompletions: any-order chains', () => {
  it('completes whichever task each event matches', () => {
    const events = [ev('c', 'transaction', 1n, { amount: 10 }), ev('b', 'kyc', 2n)];
    expect(summary(chain(threeSteps, { allowAnyOrder: true }), events)).toEqual({ t3: 'c@1', t2: 'b@2' });
  });

  it('gives an event to the lowest-numbered open task it matches', () => {
    const rules = chain([task(1, 'x', { minAmount: 100 }), task(2, 'x'), task(3, 'x')], { allowAnyOrder: true });
    const events = [ev('small', 'x', 1n, { amount: 5 }), ev('big', 'x', 2n, { amount: 500 }), ev('more', 'x', 3n)];
    expect(summary(rules, events)).toEqual({ t2: 'small@1', t1: 'big@2', t3: 'more@3' });
  });

  it('does not let one event complete two tasks', () => {
    const rules = chain([task(1, 'x'), task(2, 'x')], { allowAnyOrder: true });
    expect(summary(rules, [ev('e', 'x', 1n)])).toEqual({ t1: 'e@1' });
  });
});

describe('computeCompletions: chain window', () => {
  const rules = chain([task(1, 'x'), task(2, 'x'), task(3, 'x')], { startUs: 100n, endUs: 200n });

  it('counts an event at the start and ignores one at the end', () => {
    const events = [ev('before', 'x', 99n), ev('start', 'x', 100n), ev('last', 'x', 199n), ev('end', 'x', 200n)];
    expect(summary(rules, events)).toEqual({ t1: 'start@100', t2: 'last@199' });
  });

  it('applies the window before task time conditions', () => {
    const r = chain([task(1, 'x', { afterUs: 0n })], { startUs: 100n, endUs: 200n });
    expect(summary(r, [ev('early', 'x', 50n)])).toEqual({});
  });
});
