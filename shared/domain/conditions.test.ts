import { describe, expect, it } from 'vitest';
import type { CountingEvent, TaskCondition, TaskMismatch } from './conditions.js';
import { inChainWindow, taskMatches, taskMismatch } from './conditions.js';

const task = (over: Partial<TaskCondition> = {}): TaskCondition => ({
  id: 't1',
  sequenceNumber: 1,
  eventType: 'transaction',
  minAmount: null,
  currency: null,
  afterUs: null,
  beforeUs: null,
  ...over,
});

const event = (over: Partial<CountingEvent> = {}): CountingEvent => ({
  id: 'e1',
  eventType: 'transaction',
  occurredUs: 1_000n,
  amount: null,
  currency: null,
  ...over,
});

describe('taskMatches', () => {
  const table: [string, Partial<TaskCondition>, Partial<CountingEvent>, boolean][] = [
    ['no conditions but the type', {}, {}, true],
    ['other event type', {}, { eventType: 'kyc' }, false],
    ['event type is case-sensitive', {}, { eventType: 'Transaction' }, false],

    ['amount at the minimum', { minAmount: 100 }, { amount: 100 }, true],
    ['amount above the minimum', { minAmount: 100 }, { amount: 100.01 }, true],
    ['amount just below the minimum', { minAmount: 100 }, { amount: 99.99 }, false],
    ['no amount against a minimum', { minAmount: 100 }, { amount: null }, false],
    ['no amount against a zero minimum', { minAmount: 0 }, { amount: null }, false],
    ['zero amount against a zero minimum', { minAmount: 0 }, { amount: 0 }, true],
    ['amount without a minimum', {}, { amount: 5 }, true],

    ['currency equal', { currency: 'USD' }, { currency: 'USD' }, true],
    ['currency differs only in case', { currency: 'USD' }, { currency: 'usd' }, true],
    ['currency mixed case both sides', { currency: 'eUr' }, { currency: 'EuR' }, true],
    ['other currency', { currency: 'USD' }, { currency: 'EUR' }, false],
    ['no currency against a required one', { currency: 'USD' }, { currency: null }, false],
    ['currency without a requirement', {}, { currency: 'USD' }, true],

    ['at the after bound (inclusive)', { afterUs: 1_000n }, { occurredUs: 1_000n }, true],
    ['one microsecond before the after bound', { afterUs: 1_000n }, { occurredUs: 999n }, false],
    ['one microsecond before the before bound', { beforeUs: 1_000n }, { occurredUs: 999n }, true],
    ['at the before bound (exclusive)', { beforeUs: 1_000n }, { occurredUs: 1_000n }, false],
    ['inside both bounds', { afterUs: 10n, beforeUs: 20n }, { occurredUs: 15n }, true],
    ['empty interval', { afterUs: 20n, beforeUs: 20n }, { occurredUs: 20n }, false],

    [
      'every condition met',
      { minAmount: 50, currency: 'usd', afterUs: 0n, beforeUs: 2_000n },
      { amount: 50, currency: 'USD', occurredUs: 1_999n },
      true,
    ],
    [
      'every condition met but one',
      { minAmount: 50, currency: 'usd', afterUs: 0n, beforeUs: 2_000n },
      { amount: 50, currency: 'USD', occurredUs: 2_000n },
      false,
    ],
  ];
  it.each(table)('%s', (_why, t, e, expected) => {
    expect(taskMatches(task(t), event(e))).toBe(expected);
  });
});

describe('taskMismatch: the condition an event fails (explain names it)', () => {
  const table: [string, Partial<TaskCondition>, Partial<CountingEvent>, TaskMismatch | null][] = [
    ['accepted', { minAmount: 5, currency: 'usd', afterUs: 0n, beforeUs: 2_000n }, { amount: 5, currency: 'USD' }, null],
    ['other type', {}, { eventType: 'kyc' }, 'event_type_mismatch'],
    ['no amount', { minAmount: 5 }, {}, 'amount_missing'],
    ['amount too small', { minAmount: 5 }, { amount: 4.99 }, 'amount_below_minimum'],
    ['no currency', { currency: 'usd' }, {}, 'currency_mismatch'],
    ['other currency', { currency: 'usd' }, { currency: 'EUR' }, 'currency_mismatch'],
    ['before the task window', { afterUs: 1_001n }, {}, 'before_task_window'],
    ['at the end of the task window', { beforeUs: 1_000n }, {}, 'after_task_window'],
    ['several failures: the first in check order', { minAmount: 5, afterUs: 2_000n }, { amount: 1 }, 'amount_below_minimum'],
  ];
  it.each(table)('%s', (_why, t, e, expected) => {
    expect(taskMismatch(task(t), event(e))).toBe(expected);
    expect(taskMatches(task(t), event(e))).toBe(expected === null);
  });
});

describe('inChainWindow', () => {
  const window = { startUs: 100n, endUs: 200n };
  const table: [bigint, boolean][] = [
    [99n, false],
    [100n, true], // start inclusive
    [150n, true],
    [199n, true],
    [200n, false], // end exclusive
  ];
  it.each(table)('t=%s -> %s', (occurredUs, expected) => {
    expect(inChainWindow(window, event({ occurredUs }))).toBe(expected);
  });
});
