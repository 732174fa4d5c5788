// Points (product rules §18, docs/points.md): what a claim credits, what a
// reversal debits, when a spend is refused. Pure: the ledger's rows and their
// locks are shared/db/points-store.ts's.

/** The reward type whose claims credit the claimer's balance (a task's `reward_type`, the chain reward's `type`). */
export const POINTS = 'points';

/** Spends and entries are whole points; a balance stays far inside a bigint and a double's exact integers. */
export const MAX_POINTS_AMOUNT = 1_000_000_000_000;

/** §18.1: a points reward's value is a whole number of points, 0 or more. */
export const isWholePoints = (value: number | null | undefined): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * What claiming a reward credits (§18.2): its value for a points reward,
 * nothing for any other type. A value stored before the rule of §18.1 that is
 * not whole is credited rounded down, never up.
 */
export function pointsOfClaim(reward: { type: string; value: number | null }): bigint {
  if (reward.type !== POINTS || reward.value === null || !(reward.value > 0)) return 0n;
  return BigInt(Math.floor(Math.min(reward.value, MAX_POINTS_AMOUNT)));
}

/**
 * A claim's standing changed (§13.4, §18.3): marked reversed, its credit is
 * debited; its mark cleared, the same amount is credited back. Both are
 * `reversal` entries, so `earned` counts each claim once and `reversed` is
 * what reversals hold back now.
 */
export const reversalAmount = (credited: bigint, reversed: boolean): bigint => (reversed ? -credited : credited);

/** §18.4: a spend is granted only when the balance covers it (a balance below zero covers nothing). */
export const coversSpend = (balance: bigint, amount: bigint): boolean => amount > 0n && balance >= amount;
