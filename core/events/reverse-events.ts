import { deletePending, reverseEvents as storeReversals } from '../../shared/db/event-store.js';
import { usersCompletedBy, usersWithTallies } from '../../shared/db/progress-store.js';
import { withTransaction } from '../../shared/db/transaction.js';
import { findSourceUsers, flagUsersForEvaluation, lockUsers } from '../../shared/db/user-store.js';
import type { CoreDeps } from '../deps.js';

export interface ReverseEventsInput {
  /** The caller: only its own events can be reversed. */
  providerId: string;
  reversals: readonly { eventId: string; reason?: string | undefined }[];
}

export type ReversalResult =
  | { eventId: string; found: true; reversedUs: bigint; reason: string | null; alreadyReversed: boolean }
  | { eventId: string; found: false };

/**
 * Reverses events (docs/reversals.md): from the commit on, each counts for
 * nothing. In one transaction: the events are marked, their pending rows
 * deleted (after any batch holding one has committed: the row lock waits),
 * and the users their sender's id counts for (§4) are locked, the matcher's
 * lock, so no batch of theirs is half done. Of those, the users with a
 * completion made by a reversed event, or with a tally in some chain (a
 * counted event moves one without completing anything, docs/quest-language.md),
 * are flagged for re-evaluation, which the matcher runs after the commit,
 * without the events. The others need none: an event that completed nothing
 * in a chain without tallies was passed over, and a walk without it takes
 * every other step the same (the property test in
 * shared/domain/reversals.property.test.ts). Users registered or linked while
 * the transaction ran are looked up again after it and evaluated in full.
 * Idempotent: an event reversed before answers its first reversal,
 * `alreadyReversed`. Results follow the input's order; an id of no event of
 * the caller is not found.
 */
export async function reverseEvents(
  deps: Pick<CoreDeps, 'db' | 'producer'>,
  input: ReverseEventsInput,
): Promise<ReversalResult[]> {
  const { found, sourceUsers, affected, senders } = await withTransaction(deps.db, async (tx) => {
    const found = await storeReversals(
      tx,
      input.providerId,
      input.reversals.map((r) => ({ eventId: r.eventId, reason: r.reason ?? null })),
    );
    const reversed = found.filter((e) => !e.alreadyReversed);
    const reversedIds = reversed.map((e) => e.eventId);
    // Pending rows first, then the users' locks: the order a batch takes them in
    // (it claims its events, then locks), so the two never wait on each other.
    await deletePending(tx, reversedIds);
    const senders = reversed.map((e) => ({ providerId: input.providerId, userId: e.userId }));
    const sourceUsers = await findSourceUsers(tx, senders);
    await lockUsers(tx, sourceUsers);
    // A counted event that completed nothing still moved a tally: those users are walked again too.
    const [completedBy, withTallies] = await Promise.all([
      usersCompletedBy(tx, sourceUsers, reversedIds),
      usersWithTallies(tx, sourceUsers),
    ]);
    const affected = [...new Set([...completedBy, ...withTallies])];
    await flagUsersForEvaluation(tx, affected);
    return { found, sourceUsers, affected, senders };
  });
  // A user registered (or linked) while the transaction ran was not visible
  // to it, and their first evaluation may have read the event before the
  // commit: looked up again now, they are flagged too. One registered after
  // this lookup is evaluated after the commit, and sees the reversal.
  const seen = new Set(sourceUsers);
  const late = (await findSourceUsers(deps.db, senders)).filter((id) => !seen.has(id));
  await flagUsersForEvaluation(deps.db, late);
  const toEvaluate = [...affected, ...late];
  if (toEvaluate.length > 0)
    await deps.producer.enqueue(
      'evaluate-user',
      toEvaluate.map((userId) => ({ userId })),
    );
  const byId = new Map(found.map((e) => [e.eventId, e]));
  return input.reversals.map(({ eventId }) => {
    const event = byId.get(eventId);
    return event === undefined
      ? { eventId, found: false }
      : { eventId, found: true, reversedUs: event.reversedUs, reason: event.reason, alreadyReversed: event.alreadyReversed };
  });
}
