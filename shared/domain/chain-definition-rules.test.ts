import { describe, expect, it } from 'vitest';
import {
  type ChainFields,
  chainDefinitionIssues,
  issueParam,
  issueText,
  MAX_MIN_COUNT,
  MAX_REWARD_HOLD_SECONDS,
  MAX_STREAK_PERIODS,
  MIN_STREAK_PERIODS,
  MIN_TASKS,
  type RuleIssue,
  STREAK_UNITS,
  streakFitIssues,
  type TaskFields,
  taskThresholdIssues,
} from './chain-definition-rules.js';

const DAY_US = 86_400_000_000n;

const task = (sequenceNumber: number, fields: Partial<TaskFields> = {}): TaskFields => ({ sequenceNumber, ...fields });

/** A valid chain of two plain tasks over 30 days, with `fields` changed. */
const chain = (fields: Partial<ChainFields> = {}): ChainFields => ({
  startDate: 0n,
  endDate: 30n * DAY_US,
  tasks: [task(1), task(2)],
  ...fields,
});

const lines = (issues: readonly RuleIssue[]) => issues.map((issue) => `${issueParam(issue)} | ${issueText(issue)}`);

// Each rule with chains that keep it and chains that break it: `issues` is
// what the chain breaks, as `param | text` (the 400's `param` and `error`).
const cases: { rule: string; chain: ChainFields; issues: string[] }[] = [
  // §2: the number of tasks.
  { rule: 'tasks: one is enough', chain: chain({ tasks: [task(1)] }), issues: [] },
  { rule: 'tasks: none', chain: chain({ tasks: [] }), issues: ['tasks | tasks: must hold from 1 to 100 tasks'] },
  // §2.3: dates.
  { rule: 'dates: end after start', chain: chain(), issues: [] },
  {
    rule: 'dates: end equal to start',
    chain: chain({ endDate: 0n }),
    issues: ['end_date | end_date: must be after start_date'],
  },
  {
    rule: 'dates: end before start',
    chain: chain({ startDate: DAY_US, endDate: 0n }),
    issues: ['end_date | end_date: must be after start_date'],
  },
  // §2.4: sequence numbers.
  { rule: 'sequence: 1..n in any order', chain: chain({ tasks: [task(2), task(3), task(1)] }), issues: [] },
  {
    rule: 'sequence: a gap',
    chain: chain({ tasks: [task(1), task(3)] }),
    issues: ['tasks | tasks.sequence_number: must be exactly 1..2 (got 1, 3)'],
  },
  {
    rule: 'sequence: a repeat',
    chain: chain({ tasks: [task(1), task(1)] }),
    issues: ['tasks | tasks.sequence_number: must be exactly 1..2 (got 1, 1)'],
  },
  {
    rule: 'sequence: not from 1',
    chain: chain({ tasks: [task(3), task(2)] }),
    issues: ['tasks | tasks.sequence_number: must be exactly 1..2 (got 2, 3)'],
  },
  // §2.4: task windows.
  {
    rule: 'window: after before before',
    chain: chain({ tasks: [task(1, { conditionAfterTimestamp: DAY_US, conditionBeforeTimestamp: 2n * DAY_US })] }),
    issues: [],
  },
  { rule: 'window: one bound only', chain: chain({ tasks: [task(1, { conditionBeforeTimestamp: 0n })] }), issues: [] },
  {
    rule: 'window: empty',
    chain: chain({ tasks: [task(1), task(2, { conditionAfterTimestamp: DAY_US, conditionBeforeTimestamp: DAY_US })] }),
    issues: ['tasks.1.condition_before_timestamp | tasks.1.condition_before_timestamp: must be after condition_after_timestamp'],
  },
  {
    rule: 'window: reversed',
    chain: chain({ tasks: [task(1, { conditionAfterTimestamp: 2n * DAY_US, conditionBeforeTimestamp: DAY_US })] }),
    issues: ['tasks.0.condition_before_timestamp | tasks.0.condition_before_timestamp: must be after condition_after_timestamp'],
  },
  // §14.4: prize tables.
  {
    rule: 'prizes: a mystery box, each prize once',
    chain: chain({ reward: { type: 'mystery_box', prizes: [{ prizeId: 'gold' }, { prizeId: 'silver' }] } }),
    issues: [],
  },
  {
    rule: 'prizes: another reward without prizes',
    chain: chain({ reward: { type: 'points', value: 10, prizes: [] } }),
    issues: [],
  },
  {
    rule: 'prizes: on another reward',
    chain: chain({ reward: { type: 'points', value: 10, prizes: [{ prizeId: 'gold' }] } }),
    issues: ['chain_reward.type | chain_reward.type: a reward with prizes must be of type mystery_box'],
  },
  {
    rule: 'prizes: a prize twice',
    chain: chain({ reward: { type: 'mystery_box', prizes: [{ prizeId: 'gold' }, { prizeId: 'gold' }] } }),
    issues: ['chain_reward.prizes.1.prize_id | chain_reward.prizes.1.prize_id: gold appears twice'],
  },
  // §18.1: points are whole numbers.
  {
    rule: 'points: whole values, 0 included',
    chain: chain({
      tasks: [task(1, { rewardType: 'points', rewardValue: 0 }), task(2, { rewardType: 'points', rewardValue: 250 })],
      reward: { type: 'points', value: 1000 },
    }),
    issues: [],
  },
  {
    rule: 'points: another type may carry any value',
    chain: chain({ tasks: [task(1, { rewardType: 'cashback', rewardValue: 2.5 })], reward: { type: 'voucher', value: null } }),
    issues: [],
  },
  {
    rule: "points: a task's fractional value",
    chain: chain({ tasks: [task(1), task(2, { rewardType: 'points', rewardValue: 2.5 })] }),
    issues: ["tasks.1.reward_value | tasks.1.reward_value: a points reward's value must be a whole number of points, 0 or more"],
  },
  {
    rule: "points: a task's negative value",
    chain: chain({ tasks: [task(1, { rewardType: 'points', rewardValue: -1 })] }),
    issues: ["tasks.0.reward_value | tasks.0.reward_value: a points reward's value must be a whole number of points, 0 or more"],
  },
  {
    rule: 'points: a chain reward without a value',
    chain: chain({ reward: { type: 'points', value: null } }),
    issues: ["chain_reward.value | chain_reward.value: a points reward's value must be a whole number of points, 0 or more"],
  },
  // §16.1: a total's currency.
  {
    rule: 'total: with a currency',
    chain: chain({ tasks: [task(1, { conditionMinTotal: 500, conditionCurrency: 'USD' })] }),
    issues: [],
  },
  {
    rule: 'total: without a currency',
    chain: chain({ tasks: [task(1, { conditionMinTotal: 500 })] }),
    issues: [
      'tasks.0.condition_min_total | tasks.0.condition_min_total: needs condition_currency (a total sums amounts of one currency)',
    ],
  },
  // §16.5: streaks in runs.
  {
    rule: 'streak: a chain that does not repeat',
    chain: chain({ tasks: [task(1, { conditionStreak: { periods: 366, every: 'day' } })] }),
    issues: [],
  },
  {
    rule: 'streak: too long for a run',
    chain: chain({ recurrence: { every: 'week' }, tasks: [task(1, { conditionStreak: { periods: 8, every: 'day' } })] }),
    issues: [
      'tasks.0.condition_streak | tasks.0.condition_streak: a streak of 8 days cannot fit in one run of a chain that repeats every week (at most 7)',
    ],
  },
  // Order: the first issue is the one a use-case reports.
  {
    rule: 'order: dates, sequence, prizes, the chain reward, then each task',
    chain: chain({
      endDate: 0n,
      tasks: [task(1, { conditionMinTotal: 1 }), task(3, { conditionAfterTimestamp: 1n, conditionBeforeTimestamp: 0n })],
      reward: { type: 'points', value: 1.5, prizes: [{ prizeId: 'gold' }] },
    }),
    issues: [
      'end_date | end_date: must be after start_date',
      'tasks | tasks.sequence_number: must be exactly 1..2 (got 1, 3)',
      'chain_reward.type | chain_reward.type: a reward with prizes must be of type mystery_box',
      "chain_reward.value | chain_reward.value: a points reward's value must be a whole number of points, 0 or more",
      'tasks.0.condition_min_total | tasks.0.condition_min_total: needs condition_currency (a total sums amounts of one currency)',
      'tasks.1.condition_before_timestamp | tasks.1.condition_before_timestamp: must be after condition_after_timestamp',
    ],
  },
];

describe('chainDefinitionIssues', () => {
  it.each(cases)('$rule', ({ chain: fields, issues }) => {
    expect(lines(chainDefinitionIssues(fields))).toEqual(issues);
  });
});

describe('taskThresholdIssues (checked with the create body shape, paths of the task)', () => {
  it.each([
    { total: null, currency: null, issues: [] },
    { total: 5, currency: 'EUR', issues: [] },
    { total: null, currency: 'EUR', issues: [] },
    {
      total: 5,
      currency: null,
      issues: ['condition_min_total | condition_min_total: needs condition_currency (a total sums amounts of one currency)'],
    },
  ])('total $total, currency $currency', ({ total, currency, issues }) => {
    expect(lines(taskThresholdIssues({ conditionMinTotal: total, conditionCurrency: currency }))).toEqual(issues);
  });
});

describe('streakFitIssues: the longest streak a run holds', () => {
  // [repeats every, streak unit, most periods in one run]
  const most = [
    ['day', 'day', 1],
    ['day', 'week', 1],
    ['week', 'day', 7],
    ['week', 'week', 1],
    ['month', 'day', 31],
    ['month', 'week', 6],
  ] as const;
  it.each(most)('every %s: %s streaks fit up to %i periods', (every, unit, periods) => {
    const chainWith = (n: number) => ({ recurrence: { every }, tasks: [{ conditionStreak: { periods: n, every: unit } }] });
    expect(streakFitIssues(chainWith(periods))).toEqual([]);
    expect(lines(streakFitIssues(chainWith(periods + 1)))).toEqual([
      `tasks.0.condition_streak | tasks.0.condition_streak: a streak of ${periods + 1} ${unit}s cannot fit in one run of a chain that repeats every ${every} (at most ${periods})`,
    ]);
  });

  it('does not read a chain without recurrence, or a task without a streak', () => {
    const tasks = [{ conditionStreak: { periods: MAX_STREAK_PERIODS, every: 'week' as const } }, { conditionStreak: null }];
    expect(streakFitIssues({ recurrence: null, tasks })).toEqual([]);
    expect(streakFitIssues({ recurrence: { every: 'month' }, tasks: [{}, { conditionStreak: null }] })).toEqual([]);
  });
});

describe('limits the create body publishes', () => {
  // The product's numbers (§13.5, §16.1, §16.7): a change here changes the published interface.
  it.each([
    ['a chain has at least one task', MIN_TASKS, 1],
    ['a count is at most 10,000', MAX_MIN_COUNT, 10_000],
    ['a streak is of 2 periods at least', MIN_STREAK_PERIODS, 2],
    ['a streak is of 366 periods at most', MAX_STREAK_PERIODS, 366],
    ['a reward hold is 90 days at most', MAX_REWARD_HOLD_SECONDS, 90 * 86_400],
  ])('%s', (_, limit, expected) => {
    expect(limit).toBe(expected);
  });

  it('streaks are of days or weeks, never months (§16.7)', () => {
    expect(STREAK_UNITS).toEqual(['day', 'week']);
  });
});
