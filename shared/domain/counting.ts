import { inChainWindow } from './conditions.js';
import type { CountingEvent } from './conditions.js';

// Which stored events count for which user and chain (product rules §4), and
// the one order every walk over them uses (§5).

/** Where an event sits in the §5 walk; also the shape of a walk's high-water mark. */
export type EventPosition = { occurredUs: bigint; id: string };

/** The walk order of §5: timestamp, then event id as plain code-unit order (not locale order). */
export function compareEventPositions(a: EventPosition, b: EventPosition): number {
  if (a.occurredUs !== b.occurredUs) return a.occurredUs < b.occurredUs ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

/** A registered user as the matcher sees them. */
export type MatchUser = {
  platformId: string;
  platformUserId: string;
  /** advertiser id -> the advertiser user id linked to this user for that advertiser */
  links: ReadonlyMap<string, string>;
};

export type ChainScope = { platformId: string; advertiserId: string; startUs: bigint; endUs: bigint };

/** A stored event with its sender: a user id lives in its sender's own namespace (§3). */
export type SourcedEvent = CountingEvent & { providerId: string; userId: string };

/**
 * §4: the event was sent by the chain's platform about the user's platform id,
 * or by the chain's advertiser about the id linked to the user for it, and
 * falls in the chain's dates. A platform's events thus count for every chain
 * of the platform; an advertiser's only for the chains it sponsors.
 */
export function countsFor(user: MatchUser, chain: ChainScope, event: SourcedEvent): boolean {
  if (chain.platformId !== user.platformId) return false;
  const fromPlatform = event.providerId === user.platformId && event.userId === user.platformUserId;
  // An unlinked user has no advertiser id: undefined never equals a sent id.
  const fromAdvertiser = event.providerId === chain.advertiserId && user.links.get(chain.advertiserId) === event.userId;
  return (fromPlatform || fromAdvertiser) && inChainWindow(chain, event);
}
