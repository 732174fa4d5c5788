import { describe, expect, it } from 'vitest';
import type { TaskUserStatus } from './chain-view.js';
import { isChainCompleted, taskStatuses, userProgress } from './chain-view.js';

const tasks = [
  { id: 'c', sequenceNumber: 3 },
  { id: 'a', sequenceNumber: 1 },
  { id: 'b', sequenceNumber: 2 },
];

const statuses = (anyOrder: boolean, done: string[]): Record<string, TaskUserStatus> =>
  Object.fromEntries(taskStatuses(anyOrder, tasks, new Set(done)));

describe('taskStatuses', () => {
  const table: [string, boolean, string[], Record<string, TaskUserStatus>][] = [
    ['ordered, nothing done', false, [], { a: 'available', b: 'locked', c: 'locked' }],
    ['ordered, first done', false, ['a'], { a: 'completed', b: 'available', c: 'locked' }],
    ['ordered, two done', false, ['a', 'b'], { a: 'completed', b: 'completed', c: 'available' }],
    ['ordered, all done', false, ['a', 'b', 'c'], { a: 'completed', b: 'completed', c: 'completed' }],
    // Not a prefix (cannot come from computeCompletions, but must not break).
    ['ordered, gap', false, ['a', 'c'], { a: 'completed', b: 'available', c: 'completed' }],
    ['ordered, only a later one', false, ['b'], { a: 'available', b: 'completed', c: 'locked' }],
    ['any order, nothing done', true, [], { a: 'available', b: 'available', c: 'available' }],
    ['any order, middle done', true, ['b'], { a: 'available', b: 'completed', c: 'available' }],
    ['any order, all done', true, ['a', 'b', 'c'], { a: 'completed', b: 'completed', c: 'completed' }],
  ];
  it.each(table)('%s', (_why, anyOrder, done, expected) => {
    expect(statuses(anyOrder, done)).toEqual(expected);
  });

  it('returns tasks in sequence order', () => {
    expect([...taskStatuses(false, tasks, new Set()).keys()]).toEqual(['a', 'b', 'c']);
  });
});

describe('isChainCompleted', () => {
  const table: [number, number, boolean][] = [
    [3, 0, false],
    [3, 2, false],
    [3, 3, true],
    [1, 1, true],
    [0, 0, false], // a chain without tasks has nothing to complete
  ];
  it.each(table)('%s tasks, %s completed -> %s', (total, completed, expected) => {
    expect(isChainCompleted(total, completed)).toBe(expected);
  });
});

describe('userProgress', () => {
  const base = { registeredUs: 500n, chainStartUs: 100n };

  it('1 of 3 is 33% in progress', () => {
    expect(userProgress({ ...base, totalTasks: 3, completions: [{ completedUs: 10n }] })).toEqual({
      status: 'in_progress',
      progress: 33,
      completedTasks: 1,
      totalTasks: 3,
      completedUs: null,
      joinedUs: 500n,
    });
  });

  const table: [number, bigint[], string, number, bigint | null][] = [
    [3, [], 'not_started', 0, null],
    [3, [10n, 20n], 'in_progress', 66, null],
    [3, [30n, 10n, 20n], 'completed', 100, 30n],
    [7, [1n], 'in_progress', 14, null],
    [1, [42n], 'completed', 100, 42n],
    [0, [], 'not_started', 0, null],
  ];
  it.each(table)('%s tasks, completions %s', (totalTasks, times, status, progress, completedUs) => {
    const p = userProgress({ ...base, totalTasks, completions: times.map((completedUs) => ({ completedUs })) });
    expect(p).toMatchObject({ status, progress, completedUs, completedTasks: times.length, totalTasks });
  });

  it('joined is the later of registration and chain start', () => {
    const p = (registeredUs: bigint, chainStartUs: bigint): bigint =>
      userProgress({ totalTasks: 1, completions: [], registeredUs, chainStartUs }).joinedUs;
    expect(p(500n, 100n)).toBe(500n);
    expect(p(100n, 500n)).toBe(500n);
    expect(p(300n, 300n)).toBe(300n);
  });

  it('refuses more completions than tasks', () => {
    expect(() => userProgress({ ...base, totalTasks: 1, completions: [{ completedUs: 1n }, { completedUs: 2n }] })).toThrow(
      RangeError,
    );
  });
});
