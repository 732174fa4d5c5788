import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baseRetryDelaysMs, retryDelayMs, WEBHOOK_MAX_ATTEMPTS } from './webhooks.js';

const HOUR = 3_600_000;

describe('webhook retry schedule (§10)', () => {
  it('makes at least 8 attempts, the first retry within about 5 s, spread over at least 6 hours even with the shortest jitter', () => {
    expect(WEBHOOK_MAX_ATTEMPTS).toBeGreaterThanOrEqual(8);
    expect(retryDelayMs(1, 1, 0.999)).toBeLessThanOrEqual(6_000);
    const shortest = Array.from({ length: WEBHOOK_MAX_ATTEMPTS - 1 }, (_, i) => retryDelayMs(i + 1, 1, 0)!);
    expect(shortest.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(6 * HOUR);
  });

  it('grows exponentially up to its cap', () => {
    expect(baseRetryDelaysMs()).toEqual([5_000, 20_000, 80_000, 320_000, 1_280_000, 5_120_000, 3 * HOUR, 3 * HOUR]);
  });

  it('stops after the last scheduled attempt', () => {
    expect(retryDelayMs(WEBHOOK_MAX_ATTEMPTS, 1, 0.5)).toBeNull();
    expect(retryDelayMs(0, 1, 0.5)).toBeNull();
  });

  it('jitters within ±20% of the base and scales the whole schedule', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: WEBHOOK_MAX_ATTEMPTS - 1 }),
        fc.double({ min: 0, max: 0.9999, noNaN: true }),
        (n, random) => {
          const base = baseRetryDelaysMs()[n - 1]!;
          const delay = retryDelayMs(n, 1, random)!;
          expect(delay).toBeGreaterThanOrEqual(Math.floor(base * 0.8));
          expect(delay).toBeLessThanOrEqual(Math.ceil(base * 1.2));
          expect(retryDelayMs(n, 0.001, random)!).toBeCloseTo(delay * 0.001, -1);
        },
      ),
    );
  });
});
