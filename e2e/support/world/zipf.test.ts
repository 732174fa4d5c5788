import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../shared/testing/random.js';
import { zipfHeadShare, zipfSampler } from './zipf.js';

describe('zipfSampler', () => {
  it('gives the hottest rank and the head the shares the world is described with (s = 1.1 over 50,000)', () => {
    expect(zipfHeadShare(50_000, 1.1, 1)).toBeCloseTo(0.14, 2);
    expect(zipfHeadShare(50_000, 1.1, 50)).toBeGreaterThan(0.5);
    const draw = zipfSampler(50_000, 1.1, seededRandom(7).next);
    const counts = new Map<number, number>();
    const draws = 200_000;
    for (let i = 0; i < draws; i += 1) {
      const rank = draw();
      counts.set(rank, (counts.get(rank) ?? 0) + 1);
    }
    expect((counts.get(0) ?? 0) / draws).toBeCloseTo(zipfHeadShare(50_000, 1.1, 1), 2);
    expect([...counts.keys()].every((rank) => rank >= 0 && rank < 50_000)).toBe(true);
    // The tail is reached too: most ranks are drawn by someone.
    expect(counts.size).toBeGreaterThan(20_000);
  });

  it('is uniform with s = 0', () => {
    const draw = zipfSampler(10, 0, seededRandom(3).next);
    const counts = Array.from({ length: 10 }, () => 0);
    for (let i = 0; i < 100_000; i += 1) counts[draw()]! += 1;
    for (const count of counts) expect(count / 100_000).toBeCloseTo(0.1, 1);
  });
});
