import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFairPriority, priorityOfTag } from './fair-priority.js';

// Fair rate of these tests: 100 events per 10 s, so an event costs 0.1 s of a provider's turn.
const options = { windowMs: 10_000, quietEvents: 100 };

describe('createFairPriority', () => {
  it('tags a provider within its fair rate now, and a busy one further ahead the more it sends', () => {
    let now = 1_000_000_000;
    const fair = createFairPriority({ ...options, now: () => now });
    expect(fair.tag('quiet', 1)).toBe(1_000_000);
    expect(fair.tag('busy', 500)).toBe(1_000_000); // its first job starts now; it owes 50 s
    expect(fair.tag('busy', 500)).toBe(1_000_050);
    expect(fair.tag('busy', 1)).toBe(1_000_100);
    now += 1_000;
    expect(fair.tag('quiet', 1)).toBe(1_000_001); // one provider's volume never ranks another
    expect(priorityOfTag(fair.tag('quiet', 1))).toBeLessThan(priorityOfTag(fair.tag('busy', 1)));
  });

  it('never lets a provider jump over its own earlier jobs, whatever the rates and pauses', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ pauseMs: fc.nat(20_000), events: fc.integer({ min: 1, max: 500 }) }), { maxLength: 200 }),
        (jobs) => {
          let now = 1_700_000_000_000;
          const fair = createFairPriority({ ...options, maxLeadMs: 60_000, now: () => now });
          let previous = -Infinity;
          for (const job of jobs) {
            now += job.pauseMs;
            const tag = fair.tag('p', job.events);
            expect(tag).toBeGreaterThanOrEqual(previous);
            expect(tag).toBeGreaterThanOrEqual(now / 1000);
            expect(tag - now / 1000).toBeLessThanOrEqual(60 + 50); // the lead cap, plus one job's cost
            previous = tag;
          }
        },
      ),
    );
  });

  it('stops a provider running further ahead than the lead cap, without reordering it', () => {
    const now = 0;
    const fair = createFairPriority({ ...options, maxLeadMs: 100_000, now: () => now });
    const tags = Array.from({ length: 10 }, () => fair.tag('flood', 500));
    expect(tags).toEqual([0, 50, 100, 100, 100, 100, 100, 100, 100, 100]);
  });

  it('forgets a provider once its turn has passed', () => {
    let now = 0;
    const fair = createFairPriority({ ...options, now: () => now });
    fair.tag('p', 100); // finishes at 10 s
    expect(fair.tracked).toBe(1);
    now = 120_000;
    expect(fair.tag('other', 1)).toBe(120);
    expect(fair.tracked).toBe(1); // 'p' dropped: its next job starts now, as a new provider's would
  });

  it('maps tags onto BullMQ priorities 1 .. 2^21 - 1', () => {
    expect(priorityOfTag(0)).toBe(1);
    expect(priorityOfTag(1_795_000_000.7)).toBeGreaterThanOrEqual(1);
    expect(priorityOfTag(1_795_000_000.7)).toBeLessThan(2 ** 21);
  });
});
