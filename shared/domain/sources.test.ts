import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareEventPositions } from './counting.js';
import { senderUserId as sent, serviceUserId } from './ids.js';
import type { ChainScope, MatchUser, SourcedEvent } from './sources.js';
import { countsFor, everySourceOf, historyBySource, sourceKey, sourcesOf, usersBySource } from './sources.js';

// User U of platform P, linked to advertiser A as 'a-7' (and to B as 'b-1').
const user: MatchUser = {
  id: serviceUserId('U'),
  platformId: 'P',
  platformUserId: sent('u-1'),
  registeredUs: 0n,
  links: new Map([
    ['A', sent('a-7')],
    ['B', sent('b-1')],
  ]),
};
const unlinked: MatchUser = { ...user, links: new Map() };
// Chain C of P sponsored by A, dates [100, 200).
const chain: ChainScope = { platformId: 'P', advertiserId: 'A', startUs: 100n, endUs: 200n };

const event = (over: Partial<Omit<SourcedEvent, 'userId'>> & { userId?: string } = {}): SourcedEvent => ({
  id: 'e1',
  eventType: 'deposit',
  occurredUs: 150n,
  amount: null,
  currency: null,
  providerId: 'P',
  ...over,
  userId: sent(over.userId ?? 'u-1'),
});

describe('countsFor', () => {
  const table: [string, MatchUser, ChainScope, Parameters<typeof event>[0], boolean][] = [
    ['the platform about the user', user, chain, {}, true],
    ['the platform about another user', user, chain, { userId: 'u-2' }, false],
    ['another platform, same user id', user, chain, { providerId: 'Q' }, false],
    ['the advertiser about the linked id', user, chain, { providerId: 'A', userId: 'a-7' }, true],
    ['the advertiser, user not linked', unlinked, chain, { providerId: 'A', userId: 'a-7' }, false],
    ['the advertiser about an id linked to someone else', user, chain, { providerId: 'A', userId: 'a-8' }, false],
    ['the advertiser about the platform user id', user, chain, { providerId: 'A', userId: 'u-1' }, false],
    // The user is linked to B, but B does not sponsor this chain.
    ["an advertiser that is not the chain's", user, chain, { providerId: 'B', userId: 'b-1' }, false],
    [
      'the same advertiser for a chain it sponsors',
      user,
      { ...chain, advertiserId: 'B' },
      { providerId: 'B', userId: 'b-1' },
      true,
    ],
    ['the platform counts for a chain of another advertiser too', user, { ...chain, advertiserId: 'B' }, {}, true],
    ['at the chain start (inclusive)', user, chain, { occurredUs: 100n }, true],
    ['just before the chain start', user, chain, { occurredUs: 99n }, false],
    ['just before the chain end', user, chain, { occurredUs: 199n }, true],
    ['at the chain end (exclusive)', user, chain, { occurredUs: 200n }, false],
    ['the advertiser outside the window', user, chain, { providerId: 'A', userId: 'a-7', occurredUs: 200n }, false],
    ['a chain of another platform', user, { ...chain, platformId: 'Q' }, {}, false],
    ['a chain of another platform, its own platform sending', user, { ...chain, platformId: 'Q' }, { providerId: 'Q' }, false],
    [
      'a chain of another platform, its advertiser linked to the user',
      user,
      { ...chain, platformId: 'Q' },
      { providerId: 'A', userId: 'a-7' },
      false,
    ],
  ];
  it.each(table)('%s', (_why, u, c, e, expected) => {
    expect(countsFor(u, c, event(e))).toBe(expected);
  });
});

describe('sourcesOf', () => {
  it("names the platform about the own id, and the chain's advertiser about the linked id", () => {
    expect(sourcesOf(user, chain)).toEqual([
      { providerId: 'P', userId: 'u-1', role: 'platform' },
      { providerId: 'A', userId: 'a-7', role: 'advertiser' },
    ]);
  });
  it("names the platform alone when the chain's advertiser is not linked", () => {
    expect(sourcesOf(unlinked, chain)).toEqual([{ providerId: 'P', userId: 'u-1', role: 'platform' }]);
  });
  it('names nothing for a chain of another platform', () => {
    expect(sourcesOf(user, { ...chain, platformId: 'Q' })).toEqual([]);
  });
});

// The reverse must agree with the rule itself: a sender's events may count for
// a user in some chain exactly when the user's every-source list names it.
describe('everySourceOf and usersBySource (the reverse)', () => {
  const ids = fc.constantFrom('x', 'y', 'z');
  const advertisers = fc.constantFrom('A', 'B', 'C');
  const userArb = fc.record({
    id: fc.constantFrom('U1', 'U2', 'U3').map(serviceUserId),
    platformId: fc.constantFrom('P', 'Q'),
    platformUserId: ids.map(sent),
    registeredUs: fc.constant(0n),
    links: fc.dictionary(advertisers, ids.map(sent), { maxKeys: 3 }).map((links) => new Map(Object.entries(links))),
  });
  const sourceArb = fc.record({ providerId: fc.constantFrom('P', 'Q', 'A', 'B', 'C'), userId: ids.map(sent) });

  it("a source is in everySourceOf(user) iff some chain of the user's platform counts it", () => {
    fc.assert(
      fc.property(userArb, sourceArb, (u, source) => {
        const someChain = ['A', 'B', 'C'].some((advertiserId) =>
          sourcesOf(u, { platformId: u.platformId, advertiserId }).some((s) => sourceKey(s) === sourceKey(source)),
        );
        expect(everySourceOf(u).some((s) => sourceKey(s) === sourceKey(source))).toBe(someChain);
      }),
      { seed: 4, numRuns: 2000 },
    );
  });

  it('usersBySource maps each source to exactly the users whose sources name it', () => {
    fc.assert(
      fc.property(fc.uniqueArray(userArb, { selector: (u) => u.id, maxLength: 3 }), sourceArb, (users, source) => {
        const expected = users.filter((u) => everySourceOf(u).some((s) => sourceKey(s) === sourceKey(source))).map((u) => u.id);
        expect(usersBySource(users).get(sourceKey(source)) ?? []).toEqual(expected);
      }),
      { seed: 5, numRuns: 2000 },
    );
  });
});

// The split history must hand each (user, chain) what filtering the whole
// history by the rule would: the matcher, explain and backtest all read it.
describe('historyBySource', () => {
  const eventArb = fc
    .record({
      id: fc.uuid(),
      providerId: fc.constantFrom('P', 'Q', 'A', 'B'),
      userId: fc.constantFrom('u-1', 'a-7', 'b-1', 'x'),
      occurredUs: fc.bigInt({ min: 90n, max: 210n }),
      reversed: fc.boolean(),
    })
    .map((over) => event(over));
  const chainArb = fc.record({
    platformId: fc.constantFrom('P', 'Q'),
    advertiserId: fc.constantFrom('A', 'B'),
    startUs: fc.constant(100n),
    endUs: fc.constant(200n),
  });

  it('eventsOf is the events of sourcesOf, in the order given; countingOf those that count', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 30 }), fc.constantFrom(user, unlinked), chainArb, (events, u, c) => {
        const history = historyBySource(events);
        const sources = sourcesOf(u, c).map(sourceKey);
        const own = sources.flatMap((key) => events.filter((e) => sourceKey(e) === key));
        expect(history.eventsOf(u, c)).toEqual(own);
        expect(history.countingOf(u, c)).toEqual(own.filter((e) => countsFor(u, c, e)));
        expect(history.size).toBe(events.length);
      }),
      { seed: 6, numRuns: 1000 },
    );
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
