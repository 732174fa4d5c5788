import { findSpend, insertSpend, lockBalance, type PointSpend } from '../../shared/db/points-store.js';
import { withTransaction } from '../../shared/db/transaction.js';
import { findUserId } from '../../shared/db/user-store.js';
import type { SenderUserId } from '../../shared/domain/ids.js';
import { coversSpend } from '../../shared/domain/points.js';
import { conflict, DomainError, invalidInput } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';

export interface SpendPointsInput {
  platformId: string;
  platformUserId: SenderUserId;
  amount: bigint;
  idempotencyKey: string;
  reason: string | null;
}

export interface SpentPoints extends PointSpend {
  /** True when the key had been used for this spend before: the first spend's answer is returned. */
  alreadySpent: boolean;
}

/** 409 insufficient_points: the balance does not cover the amount; the balance is in the message and in `balance`. */
const insufficientPoints = (balance: bigint, amount: bigint) =>
  new DomainError(
    'insufficient_points',
    `The balance is ${balance} points, less than the ${amount} asked; spends are refused until it covers them`,
    'amount',
    { balance: Number(balance) },
  );

/**
 * Product rules §18.4: takes `amount` points from the user's balance once per
 * idempotency key. Under the balance row's lock (held to commit), so
 * concurrent spends queue: each sees the balance the one before left, and
 * none is granted past it. Inside the lock, a key used before answers its
 * first spend (`alreadySpent`), or 409 `idempotency_key_reused` if the amount
 * differs; then a balance below the amount (a negative one included) answers
 * 409 `insufficient_points` and takes nothing. The unique key
 * point_spends_key_once is the last guard.
 */
export async function spendPoints(deps: Pick<CoreDeps, 'db'>, input: SpendPointsInput): Promise<SpentPoints> {
  const userId = await findUserId(deps.db, input.platformId, input.platformUserId);
  if (!userId) throw invalidInput('platform_user_id: no registered user with this id', 'platformUserId', 'user_not_registered');
  return withTransaction(deps.db, async (tx) => {
    const balance = (await lockBalance(tx, userId)) ?? 0n;
    const first = await findSpend(tx, userId, input.idempotencyKey);
    if (first) {
      if (first.amount !== input.amount)
        throw conflict(
          'idempotency_key_reused',
          `idempotency_key was used for a spend of ${first.amount} points; a spend of another amount needs another key`,
          'idempotency_key',
        );
      return { spendId: first.spendId, amount: first.amount, balanceAfter: first.balanceAfter, alreadySpent: true };
    }
    if (!coversSpend(balance, input.amount)) throw insufficientPoints(balance, input.amount);
    const spend = await insertSpend(tx, {
      userId,
      idempotencyKey: input.idempotencyKey,
      amount: input.amount,
      reason: input.reason,
      balanceAfter: balance - input.amount,
    });
    return { ...spend, alreadySpent: false };
  });
}
