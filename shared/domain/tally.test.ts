import { describe, expect, it } from 'vitest';
import { taskProgress } from './chain-view.js';
import type { CountingEvent, TaskCondition } from './conditions.js';
import { absorbLateEvent, countEvent, EMPTY_TALLY, periodOf, type Tally } from './tally.js';
import { dateToMicros } from './timestamp.js';

// Week streaks (docs/quest-language.md): a week's period index is a fraction (a Monday's day number over 7),
// and for a few weeks m / 7 + 1 is not (m + 7) / 7 in doubles. The week of 1989-08-14 is one: its next
// week must extend a streak like any other (it restarted it while periods were compared with `===`).

const us = (iso: string) => dateToMicros(new Date(iso));
const weekly: TaskCondition = {
  id: 'task',
  sequenceNumber: 1,
  eventType: 'login',
  minAmount: null,
  currency: null,
  afterUs: null,
  beforeUs: null,
  streak: { periods: 3, every: 'week' },
};
const event = (iso: string): CountingEvent => ({
  id: iso,
  eventType: 'login',
  occurredUs: us(iso),
  amount: null,
  currency: null,
});
const walk = (...isos: string[]): Tally => isos.reduce((tally, iso) => countEvent(weekly, tally, event(iso), 'UTC'), EMPTY_TALLY);

describe('week streaks across weeks whose period numbers do not add up in doubles (§16)', () => {
  it('is such a week: the next week is not its period number plus one', () => {
    const [week, next] = ['1989-08-15T12:00:00Z', '1989-08-22T12:00:00Z'].map((iso) => periodOf(us(iso), 'week', 'UTC'));
    expect(next).not.toBe(week! + 1);
  });

  it('extends the streak into the next week', () => {
    expect(walk('1989-08-08T12:00:00Z', '1989-08-15T12:00:00Z', '1989-08-22T12:00:00Z')).toMatchObject({ count: 3, streak: 3 });
  });

  it('keeps a second event of the same week out of the streak', () => {
    expect(walk('1989-08-15T12:00:00Z', '1989-08-20T12:00:00Z', '1989-08-22T12:00:00Z')).toMatchObject({ count: 3, streak: 2 });
  });

  it('restarts the streak after a week without an event', () => {
    expect(walk('1989-08-08T12:00:00Z', '1989-08-22T12:00:00Z')).toMatchObject({ streak: 1 });
  });

  it('shows the streak unbroken during the next week, and broken the week after', () => {
    const tally = walk('1989-08-15T12:00:00Z');
    const shown = (nowIso: string) => taskProgress(weekly, tally, false, us(nowIso), 'UTC')?.streak;
    expect(shown('1989-08-23T12:00:00Z')).toBe(1);
    expect(shown('1989-08-30T12:00:00Z')).toBe(0);
  });

  it('absorbs a late event of the current run without redoing the walk', () => {
    const tally = walk('1989-08-15T12:00:00Z', '1989-08-22T12:00:00Z');
    expect(absorbLateEvent(weekly, tally, event('1989-08-16T12:00:00Z'), 'UTC')).toMatchObject({ count: 3, streak: 2 });
    expect(absorbLateEvent(weekly, tally, event('1989-08-01T12:00:00Z'), 'UTC')).toBeNull();
  });
});
