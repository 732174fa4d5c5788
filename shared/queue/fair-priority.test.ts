import { describe, expect, it } from 'vitest';
import { createFairPriority, MAX_FAIR_LEVEL } from './fair-priority.js';

describe('createFairPriority', () => {
  it('gives a quiet provider no priority and a busy one a level per doubling of its recent volume', () => {
    let now = 1_000_000;
    const fair = createFairPriority({ windowMs: 10_000, quietEvents: 100, now: () => now });
    expect(fair.take('quiet', 1)).toBe(0);
    expect(fair.take('busy', 100)).toBe(0); // at the quiet volume itself
    expect(fair.take('busy', 1)).toBe(1); // 101
    expect(fair.take('busy', 99)).toBe(2); // 200
    expect(fair.take('busy', 600)).toBe(4); // 800
    expect(fair.take('quiet', 1)).toBe(0); // one provider's volume never ranks another
    now += 5_000;
    expect(fair.take('busy', 10_000_000_000_000)).toBe(MAX_FAIR_LEVEL);
  });

  it('forgets volume as the window slides past it', () => {
    let now = 0;
    const fair = createFairPriority({ windowMs: 10_000, quietEvents: 100, now: () => now });
    expect(fair.take('p', 400)).toBe(3);
    now = 15_000; // half of the previous window still counts: 200 + 1
    expect(fair.take('p', 1)).toBe(2);
    now = 30_000; // two windows later: nothing counts
    expect(fair.take('p', 1)).toBe(0);
    now = 50_000;
    fair.take('other', 1);
    expect(fair.tracked).toBe(1); // 'p' was idle two windows: dropped
  });
});
