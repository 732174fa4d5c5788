import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coversSpend, isWholePoints, pointsOfClaim, reversalAmount } from './points.js';

describe('§18 points rules', () => {
  it.each([
    { value: 0, whole: true },
    { value: 250, whole: true },
    { value: 2.5, whole: false },
    { value: -1, whole: false },
    { value: null, whole: false },
    { value: Number.MAX_SAFE_INTEGER + 1, whole: false },
  ])('isWholePoints($value) is $whole', ({ value, whole }) => {
    expect(isWholePoints(value)).toBe(whole);
  });

  it.each([
    { reward: { type: 'points', value: 100 }, credit: 100n },
    { reward: { type: 'points', value: 0 }, credit: 0n },
    { reward: { type: 'points', value: null }, credit: 0n },
    // Stored before §18.1: rounded down, never up.
    { reward: { type: 'points', value: 7.9 }, credit: 7n },
    { reward: { type: 'mystery_box', value: 50 }, credit: 0n },
    { reward: { type: 'voucher', value: 10 }, credit: 0n },
  ])('a claim of $reward.type $reward.value credits $credit', ({ reward, credit }) => {
    expect(pointsOfClaim(reward)).toBe(credit);
  });

  it('a reversal debits what the claim credited, and its restoration credits it back', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), (credited) => {
        expect(reversalAmount(credited, true)).toBe(-credited);
        expect(credited + reversalAmount(credited, true) + reversalAmount(credited, false)).toBe(credited);
      }),
    );
  });

  it('a spend is covered only by a balance at least its amount (never by a negative one)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -1000n, max: 1000n }), fc.bigInt({ min: 1n, max: 1000n }), (balance, amount) => {
        expect(coversSpend(balance, amount)).toBe(balance >= amount);
        if (balance <= 0n) expect(coversSpend(balance, amount)).toBe(false);
      }),
    );
  });
});
