import { describe, expect, it } from 'vitest';
import { ActiveAnswerCache, answerKey, type CachedAnswer } from './active-answer-cache.js';

const answer = (userId: string, body = `{"user":"${userId}"}`, expiresAtMs = 10_000): CachedAnswer => ({
  body: Buffer.from(body),
  etag: `"${body.length}"`,
  definitionsFingerprint: 'defs-1',
  userId,
  expiresAtMs,
});

function following(maxBytes?: number) {
  const cache = new ActiveAnswerCache(2000, maxBytes);
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

  it('drops an entry on its user’s progress notice or its key’s claim', () => {
    const cache = following();
    cache.store(cache.ticket(), answerKey('p', 'a'), answer('id-a'));
    cache.store(cache.ticket(), answerKey('p', 'b'), answer('id-b'));
    cache.invalidateUser('id-a');
    cache.invalidateKey(answerKey('p', 'b'));
    expect(cache.get(answerKey('p', 'a'), 'defs-1', 0)).toBeUndefined();
    expect(cache.get(answerKey('p', 'b'), 'defs-1', 0)).toBeUndefined();
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
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
    expect(cache.size).toEqual({ entries: 2, bytes: 80 });
    expect(cache.get(answerKey('p', 'a'), 'defs-1', 0)).toBeUndefined();
    expect(cache.get(answerKey('p', 'c'), 'defs-1', 0)).toBeDefined();
  });
});
