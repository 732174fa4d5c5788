import type { TransactionSql } from 'postgres';
import { hashSecret } from '../../auth/secrets.js';
import type { Sql } from '../../db/client.js';
import { pgTimestampToMicros } from '../../db/timestamps.js';
import { invalidInput, conflict } from '../../errors.js';
import type { MatchingProducer } from '../../queue/producer.js';

/** The event type the service records for the advertiser when a link is made (§6.3). */
export const LINK_EVENT_TYPE = 'link_account';

export interface CompletedLink {
  linkId: string;
  advertiserUserId: string;
  linkedUs: bigint;
  alreadyLinked: boolean;
}

interface TokenRow {
  user_id: string;
  platform_id: string;
  advertiser_id: string;
  expired: boolean;
  used: boolean;
  used_advertiser_user_id: string | null;
  link_id: string | null;
}

interface LinkRow {
  id: string;
  user_id: string;
  advertiser_user_id: string;
  /** Postgres text (the drizzle driver leaves timestamps unparsed): also fed back as the link event's time. */
  linked_at: string;
}

type Outcome = { link: CompletedLink; created?: { eventId: string; userId: string } };

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
  deps: { sql: Sql; producer: MatchingProducer },
  advertiserId: string,
  input: { connection_token: string; advertiser_user_id: string },
): Promise<CompletedLink> {
  const tokenHash = hashSecret(input.connection_token);
  const advertiserUserId = input.advertiser_user_id;

  const outcome = await deps.sql.begin(async (tx): Promise<Outcome> => {
    const [token] = await tx<TokenRow[]>`
      select user_id, platform_id, advertiser_id, expires_at <= now() as expired, used_at is not null as used,
             used_advertiser_user_id, link_id
      from link_tokens where token_hash = ${tokenHash}
      for update`;
    if (!token) throw invalidInput('connection_token: unknown token');
    if (token.advertiser_id !== advertiserId) throw invalidInput('connection_token: issued for another advertiser');

    if (token.used) {
      if (token.used_advertiser_user_id !== advertiserUserId || !token.link_id) {
        throw conflict('connection_token was already used for another advertiser_user_id');
      }
      // A retry of a completed handshake answers the same link, even after the token's expiry.
      const link = await readLink(tx, token.link_id);
      return { link: toCompleted(link, true) };
    }
    if (token.expired) throw invalidInput('connection_token: expired');

    const [inserted] = await tx<LinkRow[]>`
      insert into account_links (user_id, platform_id, advertiser_id, advertiser_user_id)
      values (${token.user_id}, ${token.platform_id}, ${advertiserId}, ${advertiserUserId})
      on conflict do nothing
      returning id, user_id, advertiser_user_id, linked_at`;

    if (!inserted) {
      const existing = await resolveConflict(tx, token, advertiserUserId);
      await markUsed(tx, tokenHash, advertiserUserId, existing.id);
      return { link: toCompleted(existing, true) };
    }

    await markUsed(tx, tokenHash, advertiserUserId, inserted.id);
    const eventId = await recordLinkEvent(tx, advertiserId, advertiserUserId, inserted.linked_at);
    // Every stored event of the user must be matched again: the advertiser's earlier events now count.
    await tx`update users set needs_evaluation = true where id = ${token.user_id}`;
    return { link: toCompleted(inserted, false), created: { eventId, userId: token.user_id } };
  });

  if (outcome.created) {
    await deps.producer.enqueueEvents([outcome.created.eventId]);
    await deps.producer.enqueue('evaluate-user', [{ userId: outcome.created.userId }]);
  }
  return outcome.link;
}

const toCompleted = (row: LinkRow, alreadyLinked: boolean): CompletedLink => ({
  linkId: row.id,
  advertiserUserId: row.advertiser_user_id,
  linkedUs: pgTimestampToMicros(row.linked_at),
  alreadyLinked,
});

async function readLink(tx: TransactionSql, linkId: string): Promise<LinkRow> {
  const [link] = await tx<LinkRow[]>`select id, user_id, advertiser_user_id, linked_at from account_links where id = ${linkId}`;
  if (!link) throw new Error('used link token points at a missing link');
  return link;
}

/**
 * The insert lost to a committed link on one of the two unique keys (a fresh
 * statement sees it). The same pair is a harmless repeat; anything else is §6's 409.
 */
async function resolveConflict(tx: TransactionSql, token: TokenRow, advertiserUserId: string): Promise<LinkRow> {
  const rows = await tx<LinkRow[]>`
    select id, user_id, advertiser_user_id, linked_at from account_links
    where advertiser_id = ${token.advertiser_id}
      and (user_id = ${token.user_id} or (platform_id = ${token.platform_id} and advertiser_user_id = ${advertiserUserId}))`;
  const samePair = rows.find((row) => row.user_id === token.user_id && row.advertiser_user_id === advertiserUserId);
  if (samePair) return samePair;
  if (rows.some((row) => row.user_id === token.user_id)) {
    throw conflict('The user is already linked to another advertiser_user_id of this advertiser');
  }
  if (rows.length > 0) throw conflict('advertiser_user_id is already linked to another user of this platform');
  throw new Error('account link insert conflicted but no conflicting link was found');
}

async function markUsed(tx: TransactionSql, tokenHash: string, advertiserUserId: string, linkId: string) {
  await tx`
    update link_tokens set used_at = now(), used_advertiser_user_id = ${advertiserUserId}, link_id = ${linkId}
    where token_hash = ${tokenHash}`;
}

/** The advertiser's `link_account` event at the link time; an identical stored event is reused (dedup key). */
async function recordLinkEvent(tx: TransactionSql, advertiserId: string, advertiserUserId: string, linkedAt: string): Promise<string> {
  const [inserted] = await tx<{ id: string }[]>`
    with inserted as (
      insert into events (provider_id, user_id, event_type, occurred_at)
      values (${advertiserId}, ${advertiserUserId}, ${LINK_EVENT_TYPE}, ${linkedAt}::timestamptz)
      on conflict (provider_id, user_id, event_type, occurred_at) do nothing
      returning id, provider_id, received_at
    ), marked as (
      insert into pending_events (event_id, provider_id, received_at) select id, provider_id, received_at from inserted
    )
    select id from inserted`;
  if (inserted) return inserted.id;
  const [existing] = await tx<{ id: string }[]>`
    select id from events
    where provider_id = ${advertiserId} and user_id = ${advertiserUserId} and event_type = ${LINK_EVENT_TYPE} and occurred_at = ${linkedAt}::timestamptz`;
  if (!existing) throw new Error('link event neither inserted nor found');
  return existing.id;
}
