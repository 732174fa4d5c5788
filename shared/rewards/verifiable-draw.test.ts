import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { prizeAtRoll, prizeOdds } from '../domain/draw.js';
import { chiSquaredPValue, chiSquaredStatistic } from './chi-squared.test-helper.js';
import { drawPrize, seedHash } from './verifiable-draw.js';

const SEED = '5f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0';

/** Claim ids as the service writes them (lower-case UUID text), from a counter: fixed, so the test is repeatable. */
const claimId = (n: number) => {
  const hex = n.toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
};

describe('the chi-squared helper', () => {
  // Critical values from any table: the p-values at them are known.
  it.each([
    [3.841459, 1, 0.05],
    [18.46683, 4, 0.001],
    [11.0705, 5, 0.05],
    [4.35146, 5, 0.5],
    [124.3421, 100, 0.05],
  ])('statistic %f with %i degrees of freedom has p %f', (statistic, df, p) => {
    expect(chiSquaredPValue(statistic, df)).toBeCloseTo(p, 5);
  });
});

describe('drawPrize', () => {
  const prizes = [
    { prizeId: 'gold', weight: 1 },
    { prizeId: 'silver', weight: 9 },
    { prizeId: 'bronze', weight: 30 },
    { prizeId: 'tin', weight: 60 },
  ];

  it('is HMAC-SHA256(seed bytes, claim id), its first 8 bytes modulo the total weight, walked in table order', () => {
    const id = claimId(7);
    const digest = createHmac('sha256', Buffer.from(SEED, 'hex')).update(id).digest();
    const roll = Number(digest.readBigUInt64BE(0) % 100n);
    const draw = drawPrize(SEED, id, prizes);
    expect(draw).toEqual({ digest: digest.toString('hex'), roll, totalWeight: 100, prizeId: prizeAtRoll(prizes, roll) });
    expect(seedHash(SEED)).toBe(createHash('sha256').update(Buffer.from(SEED, 'hex')).digest('hex'));
  });

  it('gives each prize the rolls of its share, in table order', () => {
    expect([0, 1, 9, 10, 39, 40, 99].map((roll) => prizeAtRoll(prizes, roll))).toEqual([
      'gold',
      'silver',
      'silver',
      'bronze',
      'bronze',
      'tin',
      'tin',
    ]);
    expect(() => prizeAtRoll(prizes, 100)).toThrow();
  });

  it('matches the weights over 100,000 draws (chi-squared p > 0.001, fixed seed)', () => {
    const counts = new Map(prizes.map((prize) => [prize.prizeId, 0]));
    const draws = 100_000;
    for (let n = 0; n < draws; n++) {
      const { prizeId } = drawPrize(SEED, claimId(n), prizes);
      counts.set(prizeId, counts.get(prizeId)! + 1);
    }
    const observed = prizes.map((prize) => counts.get(prize.prizeId)!);
    const expected = prizes.map((prize) => (draws * prize.weight) / 100);
    const p = chiSquaredPValue(chiSquaredStatistic(observed, expected), prizes.length - 1);
    expect(p).toBeGreaterThan(0.001);
  });

  it('a draw that ignored the weights fails the same test', () => {
    // The guard works: uniform picks over these weights are far off.
    const observed = [25_000, 25_000, 25_000, 25_000];
    const expected = prizes.map((prize) => (100_000 * prize.weight) / 100);
    expect(chiSquaredPValue(chiSquaredStatistic(observed, expected), 3)).toBeLessThan(0.001);
  });

  it('refuses an empty table', () => {
    expect(() => drawPrize(SEED, claimId(1), [])).toThrow();
  });
});

describe('prizeOdds', () => {
  it('is each weight over the total weight in stock, 0 out of stock', () => {
    const odds = prizeOdds([
      { weight: 1, inStock: true },
      { weight: 3, inStock: true },
      { weight: 6, inStock: false },
    ]);
    expect(odds).toEqual([0.25, 0.75, 0]);
    expect(prizeOdds([{ weight: 5, inStock: false }])).toEqual([0]);
  });
});
