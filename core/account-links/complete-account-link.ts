import { hashSecret } from '../../shared/auth/secrets.js';
import type { Transaction } from '../../shared/db/client.js';
import { insertOrFindEvents } from '../../shared/db/event-store.js';
import {
  findClashingLinks,
  findLink,
  insertLinkIfFree,
  type LockedLinkToken,
  lockLinkToken,
  markLinkTokenUsed,
  type StoredLink,
} from '../../shared/db/link-store.js';
import { lockSenderExclusive } from '../../shared/db/sender-locks.js';
import { withTransaction } from '../../shared/db/transaction.js';
import { flagUsersForEvaluation } from '../../shared/db/user-store.js';
import type { SenderUserId, ServiceUserId } from '../../shared/domain/ids.js';
import { conflict, invalidInput } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';

/** The event type the service records for the advertiser when a link is made (§6.3). */
const LINK_EVENT_TYPE = 'link_account';

export interface CompleteAccountLinkInput {
  advertiserId: string;
  connectionToken: string;
  advertiserUserId: SenderUserId;
}

export interface CompletedLink {
  linkId: string;
  advertiserUserId: SenderUserId;
  linkedUs: bigint;
  alreadyLinked: boolean;
}

type Outcome = {
  link: CompletedLink;
  created?: { eventId: string; providerId: string; advertiserUserId: SenderUserId; userId: ServiceUserId };
};

/**
 * Product rules §6.2-6.3, race-safe: the token row is locked for the whole
 * transaction (so one token completes once), and the two unique keys of
 * account_links decide between concurrent links made with different tokens
 * (`on conflict do nothing`, then the winner is read and mapped to 200 or 409).
 * A new link records the advertiser's `link_account` event and flags the user
 * for re-evaluation in the same transaction, so nothing is lost if the
 * enqueue after commit fails (the worker's reconciler picks both up).
 */
export async function completeAccountLink(
  deps: Pick<CoreDeps, 'db' | 'producer'>,
  input: CompleteAccountLinkInput,
): Promise<CompletedLink> {
  const tokenHash = hashSecret(input.connectionToken);
  const { advertiserId, advertiserUserId } = input;

  const outcome = await withTransaction(deps.db, async (tx): Promise<Outcome> => {
    const token = await lockLinkToken(tx, tokenHash);
    if (!token) throw invalidInput('connection_token: unknown token', 'connection_token', 'link_token_invalid');
    if (token.advertiserId !== advertiserId)
      throw invalidInput('connection_token: issued for another advertiser', 'connection_token', 'link_token_invalid');

    if (token.used) {
      if (token.usedAdvertiserUserId !== advertiserUserId || !token.linkId) {
        throw conflict('link_token_used', 'connection_token was already used for another advertiser_user_id', 'connection_token');
      }
      // A retry of a completed handshake answers the same link, even after the token's expiry.
      const link = await findLink(tx, token.linkId);
      if (!link) throw new Error('used link token points at a missing link');
      return { link: toCompleted(link, true) };
    }
    if (token.expired) throw invalidInput('connection_token: expired', 'connection_token', 'link_token_expired');

    // The advertiser's sender gains a user: not while a matching batch holds its claimed events (sender-locks.ts).
    await lockSenderExclusive(tx, advertiserId, advertiserUserId);
    const inserted = await insertLinkIfFree(tx, {
      userId: token.userId,
      platformId: token.platformId,
      advertiserId,
      advertiserUserId,
    });
    if (!inserted) {
      const existing = await resolveClash(tx, token, advertiserUserId);
      await markLinkTokenUsed(tx, tokenHash, { advertiserUserId, linkId: existing.id });
      return { link: toCompleted(existing, true) };
    }

    await markLinkTokenUsed(tx, tokenHash, { advertiserUserId, linkId: inserted.id });
    // The advertiser's `link_account` event at the link time; an identical stored event is reused (dedup key).
    const [event] = await insertOrFindEvents(tx, [
      { providerId: advertiserId, userId: advertiserUserId, eventType: LINK_EVENT_TYPE, occurredAt: inserted.linkedAt },
    ]);
    // Every stored event of the user must be matched again: the advertiser's earlier events now count.
    await flagUsersForEvaluation(tx, [token.userId]);
    return {
      link: toCompleted(inserted, false),
      created: { eventId: event!.id, providerId: advertiserId, advertiserUserId, userId: token.userId },
    };
  });

  if (outcome.created) {
    const { eventId, providerId, advertiserUserId } = outcome.created;
    await deps.producer.enqueueEvents([{ eventId, providerId, userId: advertiserUserId }]);
    await deps.producer.enqueue('evaluate-user', [{ userId: outcome.created.userId }]);
  }
  return outcome.link;
}

const toCompleted = (link: StoredLink, alreadyLinked: boolean): CompletedLink => ({
  linkId: link.id,
  advertiserUserId: link.advertiserUserId,
  linkedUs: link.linkedAt,
  alreadyLinked,
});

/**
 * The insert lost to a committed link on one of the two unique keys (a fresh
 * statement sees it). The same pair is a harmless repeat; anything else is §6's 409.
 */
async function resolveClash(tx: Transaction, token: LockedLinkToken, advertiserUserId: SenderUserId): Promise<StoredLink> {
  const links = await findClashingLinks(tx, {
    userId: token.userId,
    platformId: token.platformId,
    advertiserId: token.advertiserId,
    advertiserUserId,
  });
  const samePair = links.find((link) => link.userId === token.userId && link.advertiserUserId === advertiserUserId);
  if (samePair) return samePair;
  if (links.some((link) => link.userId === token.userId)) {
    throw conflict('user_already_linked', 'The user is already linked to another advertiser_user_id of this advertiser');
  }
  if (links.length > 0)
    throw conflict(
      'advertiser_user_already_linked',
      'advertiser_user_id is already linked to another user of this platform',
      'advertiser_user_id',
    );
  throw new Error('account link insert conflicted but no conflicting link was found');
}
