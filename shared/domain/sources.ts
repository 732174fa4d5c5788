import { type ChainWindow, type CountingEvent, inChainWindow } from './conditions.js';
import type { SenderUserId, ServiceUserId } from './ids.js';

// Product rules §4, defined once: which senders' events count for a user in a
// chain, and its reverse, which users a sender's events may count for. The
// matcher, explain, backtest and the webhook recipients all ask these.

/** A registered user as §4 needs it: its platform, its id there, its advertiser links. */
export interface MatchUser {
  id: ServiceUserId;
  platformId: string;
  platformUserId: SenderUserId;
  /** users.created_at: with the chain's (or run's) start, when the user joined it (chain-view.ts, joinedUs). */
  registeredUs: bigint;
  /** advertiser id -> the advertiser's user id linked to this user */
  links: ReadonlyMap<string, SenderUserId>;
}

/** A sender and a user id in its namespace (§3): whose events these are. */
export interface EventSource {
  providerId: string;
  userId: SenderUserId;
}

/** A source of a user's events with the part its sender plays in the chain. */
export type UserSource = EventSource & { role: 'platform' | 'advertiser' };

/** The two providers of a chain. */
export type ChainParties = { platformId: string; advertiserId: string };
/** A chain as §4 needs it: its providers and its dates. */
export type ChainScope = ChainParties & ChainWindow;

/** A stored event with its sender: a user id lives in its sender's own namespace (§3). `reversed`: its sender took it back (docs/reversals.md). */
export type SourcedEvent = CountingEvent & EventSource & { reversed?: boolean };

/** One key per source, for maps and sets. */
export const sourceKey = (source: EventSource) => `${source.providerId}/${source.userId}`;

/**
 * §4: the senders whose events count for `user` in a chain of `chain`'s
 * providers: its platform about the user's own id, and the chain's advertiser
 * about the id linked to the user for it (when linked). A platform's events
 * thus count for every chain of the platform, an advertiser's only for the
 * chains it sponsors; none count for another platform's chain.
 */
export function sourcesOf(user: MatchUser, chain: ChainParties): UserSource[] {
  if (chain.platformId !== user.platformId) return [];
  const sources: UserSource[] = [{ providerId: user.platformId, userId: user.platformUserId, role: 'platform' }];
  const linked = user.links.get(chain.advertiserId);
  if (linked !== undefined) sources.push({ providerId: chain.advertiserId, userId: linked, role: 'advertiser' });
  return sources;
}

/**
 * §4 reversed: the senders whose events may count for `user` in some chain
 * (the union of sourcesOf over every chain its platform may have): its own
 * id, and each advertiser's linked id.
 */
export function everySourceOf(user: MatchUser): UserSource[] {
  const sources: UserSource[] = [{ providerId: user.platformId, userId: user.platformUserId, role: 'platform' }];
  for (const [advertiserId, linked] of user.links) sources.push({ providerId: advertiserId, userId: linked, role: 'advertiser' });
  return sources;
}

/** §4 reversed, for many users at once: source key -> the ids of the users (of `users`) its events may count for. */
export function usersBySource(users: Iterable<MatchUser>): Map<string, ServiceUserId[]> {
  const bySource = new Map<string, ServiceUserId[]>();
  for (const user of users) {
    for (const source of everySourceOf(user)) {
      const key = sourceKey(source);
      const ids = bySource.get(key);
      if (ids) ids.push(user.id);
      else bySource.set(key, [user.id]);
    }
  }
  return bySource;
}

/**
 * §4 as a predicate over events, for one (user, chain): sent by one of
 * sourcesOf(user, chain), inside the chain's dates, and not reversed (a
 * reversed event counts for nothing, docs/reversals.md). Build it once per
 * (user, chain) and apply it to many events.
 */
export function countingFilter(user: MatchUser, chain: ChainScope): (event: SourcedEvent) => boolean {
  // At most two sources: comparing fields beats building a key per event on the matcher's hot path.
  const sources = sourcesOf(user, chain);
  if (sources.length === 0) return () => false;
  return (event) =>
    event.reversed !== true &&
    sources.some((s) => s.providerId === event.providerId && s.userId === event.userId) &&
    inChainWindow(chain, event);
}

/** §4 for one event: countingFilter(user, chain)(event). */
export const countsFor = (user: MatchUser, chain: ChainScope, event: SourcedEvent): boolean => countingFilter(user, chain)(event);

/** Events read for many users at once, split by source, so each (user, chain) takes its own (§4) without scanning the rest. */
export interface SourceHistory<E extends SourcedEvent> {
  /** The events of sourcesOf(user, chain), in the order read: reversed ones and those outside the chain's dates included. */
  eventsOf(user: MatchUser, chain: ChainParties): E[];
  /** Those of them that count for the user in the chain (countingFilter). */
  countingOf(user: MatchUser, chain: ChainScope): E[];
  /** How many events there are in all. */
  readonly size: number;
}

/** Splits events by their source (sourceKey), each source's events in the order given. */
export function historyBySource<E extends SourcedEvent>(events: readonly E[]): SourceHistory<E> {
  const bySource = new Map<string, E[]>();
  for (const event of events) {
    const key = sourceKey(event);
    const list = bySource.get(key);
    if (list) list.push(event);
    else bySource.set(key, [event]);
  }
  const eventsOf = (user: MatchUser, chain: ChainParties) =>
    sourcesOf(user, chain).flatMap((source) => bySource.get(sourceKey(source)) ?? []);
  return {
    eventsOf,
    countingOf: (user, chain) => eventsOf(user, chain).filter(countingFilter(user, chain)),
    size: events.length,
  };
}
