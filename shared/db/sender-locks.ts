import { type SQL, sql } from 'drizzle-orm';
import type { SenderUserId } from '../domain/ids.js';
import type { Executor } from './client.js';

/**
 * A sender's users (§4: the platform's user by that id, and every user an
 * advertiser linked by it) must not change while a matching batch that
 * resolved them is in flight (docs/matching.md, "Late events absorbed").
 *
 * The batch walks the events it claims for the users it resolved, and until
 * it commits, no other batch's history read counts them (they are still
 * pending). A user registered or linked after that resolution would never
 * count them: not through that batch, which did not see the user, nor
 * through the user's own re-evaluation, which ran while they were pending.
 * So a batch holds a shared lock on each sender it claimed events of, taken
 * before it resolves their users (in the claim, the statement before the
 * resolution), and registering a platform user or linking an advertiser's
 * user takes that sender's lock exclusively: the new user is either seen by
 * the batch's resolution, or made only once the batch has committed and its
 * events are no longer pending.
 */
export const senderLockKey = (providerId: SQL, senderUserId: SQL): SQL =>
  sql`hashtextextended('sender:' || ${providerId}::text || ':' || ${senderUserId}, 0)`;

/** The sender's lock taken exclusively, as an expression (a statement that must take it before it writes). */
export const exclusiveSenderLock = (providerId: string, senderUserId: SenderUserId): SQL =>
  sql`pg_advisory_xact_lock(${senderLockKey(sql`${providerId}::uuid`, sql`${senderUserId}::text`)})`;

/** Waits until no batch holds claimed events of this sender, and keeps new ones out until the transaction ends. */
export async function lockSenderExclusive(tx: Executor, providerId: string, senderUserId: SenderUserId): Promise<void> {
  await tx.execute(sql`select count(${exclusiveSenderLock(providerId, senderUserId)})`);
}
