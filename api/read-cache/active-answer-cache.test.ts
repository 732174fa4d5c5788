import { describe, expect, it } from 'vitest';
import { cachedAnswer as answer } from '../testing/cached-answer.js';
import { ActiveAnswerCache, answerKey } from './active-answer-cache.js';

function following(maxBytes?: number, maxTags?: number) {
  const cache = new ActiveAnswerCache(2000, { maxBytes, maxTags });
  cache.follow(true);
  return cache;
}

describe('ActiveAnswerCache', () => {
  it('serves an entry for the same definitions until it expires', () => {
    const cache = following();
    cache.store(cache.ticket(), answerKey('p', 'u'), answer('id-u'));
    expect(cache.get(answerKey('p', 'u'), 'defs-1', 9_999)?.userId).toBe('id-u');
    expect(cache.get(answerKey('p', 'u'), 'defs-2', 1)).toBeUndefined();
    cache.store(cache.ticket(), answerKey('p', 'u'), answer('id-u'));
    expect(cache.get(answerKey('p', 'u'), 'defs-1', 10_000)).toBeUndefined();
  });

  it("drops every answer of a reset platform, tags and bodies, keeps other platforms', and refuses a fill read before the reset", () => {
    const cache = following();
    const inFlight = cache.ticket();
    cache.store(cache.ticket(), answerKey('test-p', 'a'), answer('id-a'));
    cache.store(cache.ticket(), answerKey('test-p', 'b'), answer('id-b'));
    cache.store(cache.ticket(), answerKey('p', 'a'), answer('id-live-a'));
    cache.invalidatePlatform('test-p');
    expect(cache.get(answerKey('test-p', 'a'), 'defs-1', 0)).toBeUndefined();
    expect(cache.tag(answerKey('test-p', 'b'), 'defs-1', 0)).toBeUndefined();
    expect(cache.get(answerKey('p', 'a'), 'defs-1', 0)?.userId).toBe('id-live-a');
    expect(cache.size.tags).toBe(1);
    // Read from the database before the reset, stored after it: refused.
    cache.store(inFlight, answerKey('test-p', 'c'), answer('id-c'));
    expect(cache.get(answerKey('test-p', 'c'), 'defs-1', 0)).toBeUndefined();
  });

  it('drops an entry on its user’s progress notice or its key’s claim', () => {
    const cache = following();
    cache.store(cache.ticket(), answerKey('p', 'a'), answer('id-a'));
    cache.store(cache.ticket(), answerKey('p', 'b'), answer('id-b'));
    cache.invalidateUser('id-a');
    cache.invalidateKey(answerKey('p', 'b'));
    expect(cache.get(answerKey('p', 'a'), 'defs-1', 0)).toBeUndefined();
    expect(cache.get(answerKey('p', 'b'), 'defs-1', 0)).toBeUndefined();
    expect(cache.size).toEqual({ entries: 0, bytes: 0, tags: 0 });
  });

  it('refuses an answer read before a notice about its user that arrived meanwhile', () => {
    const cache = following();
    const ticket = cache.ticket();
    cache.invalidateUser('id-other');
    cache.invalidateUser('id-a'); // the user was unknown to the cache when the read started
    cache.store(ticket, answerKey('p', 'a'), answer('id-a'));
    expect(cache.get(answerKey('p', 'a'), 'defs-1', 0)).toBeUndefined();
    // A notice about someone else does not stop a store.
    const later = cache.ticket();
    cache.invalidateKey(answerKey('p', 'z'));
    cache.store(later, answerKey('p', 'a'), answer('id-a'));
    expect(cache.get(answerKey('p', 'a'), 'defs-1', 0)).toBeDefined();
  });

  it('refuses every store that started before notices may have been lost, and serves nothing while not following', () => {
    const cache = following();
    const ticket = cache.ticket();
    cache.follow(false);
    cache.store(ticket, answerKey('p', 'a'), answer('id-a'));
    expect(cache.size.entries).toBe(0);
    cache.follow(true);
    cache.store(ticket, answerKey('p', 'a'), answer('id-a'));
    expect(cache.size.entries).toBe(0);
    cache.store(cache.ticket(), answerKey('p', 'a'), answer('id-a'));
    expect(cache.size.entries).toBe(1);
  });

  it('keeps the bodies within its byte budget, oldest out first', () => {
    const cache = following(100);
    for (const name of ['a', 'b', 'c']) cache.store(cache.ticket(), answerKey('p', name), answer(`id-${name}`, 'x'.repeat(40)));
    expect(cache.size).toEqual({ entries: 2, bytes: 80, tags: 3 });
    expect(cache.get(answerKey('p', 'a'), 'defs-1', 0)).toBeUndefined();
    expect(cache.get(answerKey('p', 'c'), 'defs-1', 0)).toBeDefined();
  });

  it('keeps the tag of an answer whose body was evicted, until its user changes', () => {
    const cache = following(100);
    for (const name of ['a', 'b', 'c']) cache.store(cache.ticket(), answerKey('p', name), answer(`id-${name}`, 'x'.repeat(40)));
    expect(cache.get(answerKey('p', 'a'), 'defs-1', 0)).toBeUndefined();
    expect(cache.tag(answerKey('p', 'a'), 'defs-1', 0)).toBe('"id-a:40"');
    // The tag follows the same rules as the body: definitions, expiry, notices.
    expect(cache.tag(answerKey('p', 'a'), 'defs-2', 0)).toBeUndefined();
    expect(cache.tag(answerKey('p', 'b'), 'defs-1', 10_000)).toBeUndefined();
    cache.invalidateUser('id-c');
    expect(cache.tag(answerKey('p', 'c'), 'defs-1', 0)).toBeUndefined();
    expect(cache.get(answerKey('p', 'c'), 'defs-1', 0)).toBeUndefined();
    expect(cache.size).toEqual({ entries: 0, bytes: 0, tags: 0 });
  });

  it('bounds the tags by count, a tag pushed out taking its body and its user with it', () => {
    const cache = following(1000, 2);
    for (const name of ['a', 'b', 'c']) cache.store(cache.ticket(), answerKey('p', name), answer(`id-${name}`));
    expect(cache.size).toMatchObject({ entries: 2, tags: 2 });
    expect(cache.tag(answerKey('p', 'a'), 'defs-1', 0)).toBeUndefined();
    expect(cache.get(answerKey('p', 'a'), 'defs-1', 0)).toBeUndefined();
    // The evicted user's index entry is gone: a notice about them touches no one else.
    cache.invalidateUser('id-a');
    expect(cache.size).toMatchObject({ entries: 2, tags: 2 });
  });

  it('renews a body’s token in place, keeping its tag and its byte count right', () => {
    const cache = following();
    const entry = { ...answer('id-a', '{"token":"old-token"}'), tokenAt: 10, tokenLength: 9 };
    cache.store(cache.ticket(), answerKey('p', 'a'), entry);
    cache.renewToken(answerKey('p', 'a'), entry, 'a-longer-token', 60_000);
    const renewed = cache.get(answerKey('p', 'a'), 'defs-1', 0)!;
    expect(renewed.body.toString()).toBe('{"token":"a-longer-token"}');
    expect(renewed.etag).toBe(entry.etag);
    expect(cache.size.bytes).toBe(renewed.body.length);
    cache.renewToken(answerKey('p', 'a'), renewed, 'short', 120_000);
    expect(cache.get(answerKey('p', 'a'), 'defs-1', 0)!.body.toString()).toBe('{"token":"short"}');
  });

  it('counts a read of the body as a use of its tag', () => {
    const cache = following(1000, 2);
    cache.store(cache.ticket(), answerKey('p', 'a'), answer('id-a'));
    cache.store(cache.ticket(), answerKey('p', 'b'), answer('id-b'));
    expect(cache.get(answerKey('p', 'a'), 'defs-1', 0)).toBeDefined();
    cache.store(cache.ticket(), answerKey('p', 'c'), answer('id-c'));
    expect(cache.get(answerKey('p', 'a'), 'defs-1', 0)).toBeDefined();
    expect(cache.tag(answerKey('p', 'b'), 'defs-1', 0)).toBeUndefined();
  });
});
