import { describe, expect, it } from 'vitest';
import { admitsNoOneNew } from './admission.js';

describe('admitsNoOneNew', () => {
  it.each([
    { maxCompletions: null, admittedUsers: 0, full: false },
    { maxCompletions: null, admittedUsers: 1_000_000, full: false },
    { maxCompletions: 3, admittedUsers: 0, full: false },
    { maxCompletions: 3, admittedUsers: 2, full: false },
    { maxCompletions: 3, admittedUsers: 3, full: true },
    { maxCompletions: 3, admittedUsers: 4, full: true },
    { maxCompletions: 0, admittedUsers: 0, full: true },
  ])('max $maxCompletions, admitted $admittedUsers: full is $full', ({ full, ...chain }) => {
    expect(admitsNoOneNew(chain)).toBe(full);
  });
});
