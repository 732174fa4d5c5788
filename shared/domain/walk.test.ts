import { describe, expect, it } from 'vitest';
import type { CountingEvent } from './conditions.js';
import { chain, ev, task } from './rules.test-helper.js';
import type { WalkAdvance, WalkState } from './walk.js';
import { advanceWalk, isRelevant, recomputeWalk, redoWalk, redoWindow } from './walk.js';

const EMPTY: WalkState = { completions: new Map(), mark: null };

// Compact views: taskId -> eventId@time, and the mark as id@time.
const summary = (state: WalkState): Record<string, string> =>
  Object.fromEntries([...state.completions.values()].map((c) => [c.taskId, `${c.eventId}@${c.completedUs}`]));
const markOf = (state: WalkState): string | null => (state.mark === null ? null : `${state.mark.id}@${state.mark.occurredUs}`);

function advanced(result: WalkAdvance): { state: WalkState; changed: boolean } {
  if ('recompute' in result) throw new Error('expected an incremental advance, got a recompute');
  return result;
}

describe('isRelevant', () => {
  const rules = chain([task(1, 'a', { minAmount: 10 }), task(2, 'b')], { startUs: 100n, endUs: 200n });
  const table: [string, CountingEvent, boolean][] = [
    ['matches a task', ev('e', 'b', 150n), true],
    ['matches a later task of an ordered chain', ev('e', 'b', 100n), true],
    ['no task accepts its type', ev('e', 'c', 150n), false],
    ['its type, but below every minimum', ev('e', 'a', 150n, { amount: 5 }), false],
    ['matches, but at the chain end', ev('e', 'b', 200n), false],
    ['matches, but before the chain start', ev('e', 'b', 99n), false],
  ];
  it.each(table)('%s', (_why, event, expected) => {
    expect(isRelevant(rules, event)).toBe(expected);
  });
});

describe('recomputeWalk', () => {
  it('marks the last relevant event, walked or passed over, not the last event', () => {
    const rules = chain([task(1, 'a'), task(2, 'b')]);
    const state = recomputeWalk(rules, [ev('a1', 'a', 1n), ev('b0', 'b', 0n), ev('b2', 'b', 2n), ev('noise', 'zzz', 9n)]);
    expect(summary(state)).toEqual({ t1: 'a1@1', t2: 'b2@2' });
    expect(markOf(state)).toBe('b2@2');
  });

  it('has no mark without relevant events', () => {
    expect(recomputeWalk(chain([task(1, 'a')]), [ev('x', 'zzz', 1n), ev('late', 'a', 5_000n)])).toEqual(EMPTY);
  });
});

describe('advanceWalk', () => {
  const ordered = chain([task(1, 'a'), task(2, 'b')]);

  it('applies events after the mark one by one', () => {
    const first = advanced(advanceWalk(ordered, EMPTY, [ev('a1', 'a', 1n)]));
    expect(first.changed).toBe(true);
    const second = advanced(advanceWalk(ordered, first.state, [ev('b2', 'b', 2n)]));
    expect(second.changed).toBe(true);
    expect(summary(second.state)).toEqual({ t1: 'a1@1', t2: 'b2@2' });
    expect(markOf(second.state)).toBe('b2@2');
  });

  it('recomputes for a late event, which moves a completion earlier', () => {
    const rules = chain([task(1, 'a')]);
    const state = recomputeWalk(rules, [ev('a5', 'a', 5n)]);
    expect(advanceWalk(rules, state, [ev('a3', 'a', 3n)])).toEqual({ recompute: true, from: { occurredUs: 3n, id: 'a3' } });
    expect(summary(recomputeWalk(rules, [ev('a5', 'a', 5n), ev('a3', 'a', 3n)]))).toEqual({ t1: 'a3@3' });
  });

  it('recomputes when an event precedes one passed over, so the passed-over one can complete its task', () => {
    // b@5 is passed over (t1 is open) but still moves the mark; a@3 is then late.
    const passed = advanced(advanceWalk(ordered, EMPTY, [ev('b5', 'b', 5n)]));
    expect(passed).toEqual({ state: { completions: new Map(), mark: { occurredUs: 5n, id: 'b5' } }, changed: false });
    expect(advanceWalk(ordered, passed.state, [ev('a3', 'a', 3n)])).toEqual({
      recompute: true,
      from: { occurredUs: 3n, id: 'a3' },
    });
    expect(summary(recomputeWalk(ordered, [ev('b5', 'b', 5n), ev('a3', 'a', 3n)]))).toEqual({ t1: 'a3@3', t2: 'b5@5' });
  });

  it('breaks a timestamp tie with the mark by id', () => {
    const state = recomputeWalk(ordered, [ev('m', 'a', 5n)]);
    // l sorts before m at the same instant: late, and it would complete t1 there.
    expect(advanceWalk(ordered, state, [ev('l', 'a', 5n)])).toEqual({ recompute: true, from: { occurredUs: 5n, id: 'l' } });
    expect(summary(recomputeWalk(ordered, [ev('m', 'a', 5n), ev('l', 'a', 5n)]))).toEqual({ t1: 'l@5' });
    expect(summary(advanced(advanceWalk(ordered, state, [ev('n', 'b', 5n)])).state)).toEqual({ t1: 'm@5', t2: 'n@5' });
  });

  it('any-order chain: each later event completes the task it matches, without recomputing', () => {
    const rules = chain([task(1, 'a'), task(2, 'b')], { allowAnyOrder: true });
    const first = advanced(advanceWalk(rules, EMPTY, [ev('b1', 'b', 1n)]));
    expect(summary(first.state)).toEqual({ t2: 'b1@1' });
    const second = advanced(advanceWalk(rules, first.state, [ev('a2', 'a', 2n)]));
    expect(summary(second.state)).toEqual({ t1: 'a2@2', t2: 'b1@1' });
  });

  it('treats the mark delivered again as already walked, alone or with newer events', () => {
    // Walked twice, a1 would also complete t2, which accepts the same type.
    const twice = chain([task(1, 'a'), task(2, 'a')]);
    const state = recomputeWalk(twice, [ev('a1', 'a', 1n)]);
    expect(advanceWalk(twice, state, [ev('a1', 'a', 1n), ev('a1', 'a', 1n)])).toEqual({ state, changed: false });
    const next = advanced(advanceWalk(twice, state, [ev('a2', 'a', 2n), ev('a1', 'a', 1n), ev('a2', 'a', 2n)]));
    expect(summary(next.state)).toEqual({ t1: 'a1@1', t2: 'a2@2' });
  });

  it('passes over a late event that completes nothing in the state at its position, even before a completion', () => {
    const done = recomputeWalk(ordered, [ev('a1', 'a', 1n), ev('b5', 'b', 5n)]);
    // At 3, t1 is done and t2 (b) is open: a3 is passed over there, so nothing after it changes.
    expect(advanceWalk(ordered, done, [ev('a3', 'a', 3n)])).toEqual({ state: done, changed: false });
    expect(summary(recomputeWalk(ordered, [ev('a1', 'a', 1n), ev('b5', 'b', 5n), ev('a3', 'a', 3n)]))).toEqual(summary(done));
    // b3 would complete t2 there, earlier than b5: that one needs the recompute.
    expect(advanceWalk(ordered, done, [ev('b3', 'b', 3n)])).toEqual({ recompute: true, from: { occurredUs: 3n, id: 'b3' } });
    const anyOrder = chain([task(1, 'a'), task(2, 'b')], { allowAnyOrder: true });
    const both = recomputeWalk(anyOrder, [ev('a4', 'a', 4n), ev('b2', 'b', 2n)]);
    // At 3 only t1 is open and b3 does not match it; a3 would complete t1 earlier.
    expect(advanceWalk(anyOrder, both, [ev('b3', 'b', 3n)])).toEqual({ state: both, changed: false });
    expect(advanceWalk(anyOrder, both, [ev('a3', 'a', 3n)])).toEqual({ recompute: true, from: { occurredUs: 3n, id: 'a3' } });
  });

  it('starts the redo at the first late event that changes the walk, not at the first late one', () => {
    const done = recomputeWalk(ordered, [ev('a1', 'a', 1n), ev('b5', 'b', 5n)]);
    // a2 is passed over at 2 (t1 done, t2 open): the walk before b3 stands.
    expect(advanceWalk(ordered, done, [ev('a2', 'a', 2n), ev('b3', 'b', 3n)])).toEqual({
      recompute: true,
      from: { occurredUs: 3n, id: 'b3' },
    });
  });

  it('ignores irrelevant events even before the mark: no recompute, no mark move', () => {
    const state = recomputeWalk(ordered, [ev('a5', 'a', 5n)]);
    const result = advanceWalk(ordered, state, [ev('noise', 'zzz', 1n), ev('outside', 'b', 5_000n)]);
    expect(result).toEqual({ state, changed: false });
  });

  it('changes neither the completions nor the mark of a completed chain (its row is not written again)', () => {
    const done = recomputeWalk(ordered, [ev('a1', 'a', 1n), ev('b2', 'b', 2n)]);
    const after = advanced(advanceWalk(ordered, done, [ev('a3', 'a', 3n), ev('b4', 'b', 4n)]));
    expect(after).toEqual({ state: done, changed: false });
    // A later batch of events before the ones not walked (after the kept mark): nothing either.
    expect(advanced(advanceWalk(ordered, after.state, [ev('a2', 'a', 3n), ev('b3', 'b', 3n)]))).toEqual({
      state: done,
      changed: false,
    });
  });

  it('moves the mark of a chain completed by this very batch to its last relevant event', () => {
    const started = recomputeWalk(ordered, [ev('a1', 'a', 1n)]);
    const after = advanced(advanceWalk(ordered, started, [ev('b2', 'b', 2n), ev('a3', 'a', 3n)]));
    expect(summary(after.state)).toEqual({ t1: 'a1@1', t2: 'b2@2' });
    expect(markOf(after.state)).toBe('a3@3');
  });

  it('recomputes a state that has completions but no mark', () => {
    const odd: WalkState = { completions: new Map([['t1', { taskId: 't1', eventId: 'x', completedUs: 1n }]]), mark: null };
    expect(advanceWalk(ordered, odd, [ev('b9', 'b', 9n)])).toEqual({ recompute: true });
  });

  it('does not modify the state it is given', () => {
    const state = recomputeWalk(ordered, [ev('a1', 'a', 1n)]);
    const before = structuredClone(state);
    advanced(advanceWalk(ordered, state, [ev('b2', 'b', 2n)]));
    expect(state).toEqual(before);
  });
});

describe('redoWalk', () => {
  const ordered = chain([task(1, 'a'), task(2, 'b'), task(3, 'c')]);
  const stored = [ev('a1', 'a', 1n), ev('b4', 'b', 4n), ev('c6', 'c', 6n), ev('c9', 'c', 9n)];

  it('redoes from the late event on, keeping the walk before it, and a complete walk only up to its last completion', () => {
    const done = recomputeWalk(ordered, stored);
    const late = ev('b2', 'b', 2n);
    const window = redoWindow(ordered, done, { occurredUs: 2n, id: 'b2' });
    expect(window.until).toEqual({ occurredUs: 6n, id: 'c6' });
    // Only the events inside the window are given: the walk before b2 comes from the stored state.
    const redone = redoWalk(ordered, done, window, [late, ev('b4', 'b', 4n), ev('c6', 'c', 6n)]);
    expect(summary(redone!)).toEqual(summary(recomputeWalk(ordered, [...stored, late])));
    expect(summary(redone!)).toEqual({ t1: 'a1@1', t2: 'b2@2', t3: 'c6@6' });
  });

  it('answers null when a window closed by `until` does not end complete, so the caller walks everything', () => {
    const done = recomputeWalk(ordered, stored);
    // A window ending before c6 (as no real walk's would): t3 stays open inside it.
    expect(
      redoWalk(ordered, done, { from: { at: { occurredUs: 2n, id: 'b2' }, after: false }, until: { occurredUs: 5n, id: 'z' } }, [
        ev('b2', 'b', 2n),
        ...stored,
      ]),
    ).toBeNull();
    // The same without an end is the walk over everything after b2.
    expect(
      summary(
        redoWalk(ordered, done, { from: { at: { occurredUs: 2n, id: 'b2' }, after: false }, until: null }, [
          ev('b2', 'b', 2n),
          ...stored,
        ])!,
      ),
    ).toEqual({ t1: 'a1@1', t2: 'b2@2', t3: 'c6@6' });
  });
});
