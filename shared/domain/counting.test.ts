import { describe, it, expect } from 'vitest';
import { compareEventPositions, countsFor } from './counting.js';
import type { ChainScope, MatchUser, SourcedEvent } from './counting.js';

// User U of platform P, linked to advertiser A as 'a-7' (and to B as 'b-1').
const user: MatchUser = { platformId: 'P', platformUserId: 'u-1', links: new Map([['A', 'a-7'], ['B', 'b-1']]) };
const unlinked: MatchUser = { platformId: 'P', platformUserId: 'u-1', links: new Map() };
// Chain C of P sponsored by A, dates [100, 200).
const chain: ChainScope = { platformId: 'P', advertiserId: 'A', startUs: 100n, endUs: 200n };

const event = (over: Partial<SourcedEvent> = {}): SourcedEvent => ({
  id: 'e1',
  eventType: 'deposit',
  occurredUs: 150n,
  amount: null,
  currency: null,
  providerId: 'P',
  userId: 'u-1',
  ...over,
});

describe('countsFor', () => {
  const table: [string, MatchUser, ChainScope, Partial<SourcedEvent>, boolean][] = [
    ['the platform about the user', user, chain, {}, true],
    ['the platform about another user', user, chain, { userId: 'u-2' }, false],
    ['another platform, same user id', user, chain, { providerId: 'Q' }, false],
    ['the advertiser about the linked id', user, chain, { providerId: 'A', userId: 'a-7' }, true],
    ['the advertiser, user not linked', unlinked, chain, { providerId: 'A', userId: 'a-7' }, false],
    ['the advertiser about an id linked to someone else', user, chain, { providerId: 'A', userId: 'a-8' }, false],
    ['the advertiser about the platform user id', user, chain, { providerId: 'A', userId: 'u-1' }, false],
    // The user is linked to B, but B does not sponsor this chain.
    ['an advertiser that is not the chain\'s', user, chain, { providerId: 'B', userId: 'b-1' }, false],
    ['the same advertiser for a chain it sponsors', user, { ...chain, advertiserId: 'B' }, { providerId: 'B', userId: 'b-1' }, true],
    ['the platform counts for a chain of another advertiser too', user, { ...chain, advertiserId: 'B' }, {}, true],
    ['at the chain start (inclusive)', user, chain, { occurredUs: 100n }, true],
    ['just before the chain start', user, chain, { occurredUs: 99n }, false],
    ['just before the chain end', user, chain, { occurredUs: 199n }, true],
    ['at the chain end (exclusive)', user, chain, { occurredUs: 200n }, false],
    ['the advertiser outside the window', user, chain, { providerId: 'A', userId: 'a-7', occurredUs: 200n }, false],
    ['a chain of another platform', user, { ...chain, platformId: 'Q' }, {}, false],
    ['a chain of another platform, its own platform sending', user, { ...chain, platformId: 'Q' }, { providerId: 'Q' }, false],
    ['a chain of another platform, its advertiser linked to the user', user, { ...chain, platformId: 'Q' }, { providerId: 'A', userId: 'a-7' }, false],
  ];
  it.each(table)('%s', (_why, u, c, e, expected) => {
    expect(countsFor(u, c, event(e))).toBe(expected);
  });
});

describe('compareEventPositions', () => {
  const table: [string, [bigint, string], [bigint, string], number][] = [
    ['earlier timestamp first', [1n, 'z'], [2n, 'a'], -1],
    ['later timestamp last', [3n, 'a'], [2n, 'z'], 1],
    ['tie broken by id', [5n, 'a'], [5n, 'b'], -1],
    // Code-unit order: upper case before lower case, unlike locale order.
    ['tie by id in code-unit order', [5n, 'B'], [5n, 'a'], -1],
    ['same position', [5n, 'a'], [5n, 'a'], 0],
  ];
  it.each(table)('%s', (_why, [at, aid], [bt, bid], expected) => {
    expect(compareEventPositions({ occurredUs: at, id: aid }, { occurredUs: bt, id: bid })).toBe(expected);
  });
});
