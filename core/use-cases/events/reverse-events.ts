import { deletePending, reverseEvents as storeReversals } from '../../../shared/db/event-store.js';
import { withTransaction } from '../../../shared/db/transaction.js';
import { findSourceUsers, flagUsersForEvaluation } from '../../../shared/db/user-store.js';
import type { CoreDeps } from '../../deps.js';

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
 * nothing. In the same transaction every user its sender's id counts for
 * (§4) is flagged for re-evaluation, so the matcher redoes their walks
 * without the event; the evaluation is then enqueued (best effort: the
 * reconciler finds flagged users). Always re-evaluated, even when the event
 * was still pending: a recompute may already have walked it. Idempotent: an event reversed before answers its
 * first reversal, `alreadyReversed`. Results follow the input's order; an id
 * of no event of the caller is not found.
 */
export async function reverseEvents(deps: Pick<CoreDeps, 'db' | 'producer'>, input: ReverseEventsInput): Promise<ReversalResult[]> {
  const { found, userIds, senders } = await withTransaction(deps.db, async (tx) => {
    const found = await storeReversals(tx, input.providerId, input.reversals.map((r) => ({ eventId: r.eventId, reason: r.reason ?? null })));
    const reversed = found.filter((e) => !e.alreadyReversed);
    // Takes the event from the matcher: its pending row goes, after any batch
    // holding it right now has committed (the row lock waits for it). A batch
    // read its events before taking its users' locks, so without this it could
    // walk an event reversed meanwhile after the re-evaluation had run.
    await deletePending(tx, reversed.map((e) => e.eventId));
    const senders = reversed.map((e) => ({ providerId: input.providerId, userId: e.userId }));
    const userIds = await findSourceUsers(tx, senders);
    await flagUsersForEvaluation(tx, userIds);
    return { found, userIds, senders };
  });
  // A user registered (or linked) while the transaction ran was not visible
  // to it, and their first evaluation may have read the event before the
  // commit: looked up again now, they are flagged too. One registered after
  // this lookup is evaluated after the commit, and sees the reversal.
  const flagged = new Set(userIds);
  const late = (await findSourceUsers(deps.db, senders)).filter((id) => !flagged.has(id));
  await flagUsersForEvaluation(deps.db, late);
  const toEvaluate = [...userIds, ...late];
  if (toEvaluate.length > 0) await deps.producer.enqueue('evaluate-user', toEvaluate.map((userId) => ({ userId })));
  const byId = new Map(found.map((e) => [e.eventId, e]));
  return input.reversals.map(({ eventId }) => {
    const event = byId.get(eventId);
    return event === undefined
      ? { eventId, found: false }
      : { eventId, found: true, reversedUs: event.reversedUs, reason: event.reason, alreadyReversed: event.alreadyReversed };
  });
}
