import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { findCredentialForAuth } from '../../shared/db/credential-store.js';
import { createTestProvider } from '../../shared/testing/fixtures.js';
import { useTestData } from '../../shared/testing/test-data.js';
import { CredentialCache } from './credential-cache.js';

const { database } = useTestData('credential_cache');

/** A cache whose Postgres lookups are counted per key. */
function countingCache(options: { maxKnown: number; maxUnknown: number }) {
  const lookups = new Map<string, number>();
  const cache = new CredentialCache(database.db, 60_000, {
    ...options,
    lookup: (key) => {
      lookups.set(key, (lookups.get(key) ?? 0) + 1);
      return findCredentialForAuth(database.db, key);
    },
  });
  return { cache, lookups };
}

describe('CredentialCache', () => {
  it('keeps a known key cached through a flood of unknown keys larger than either cache', async () => {
    const known = await createTestProvider(database.db, 'platform');
    const { cache, lookups } = countingCache({ maxKnown: 50, maxUnknown: 20 });
    expect((await cache.find(known.key))?.providerId).toBe(known.id);

    for (let n = 0; n < 300; n += 1) expect(await cache.find(`pk_${randomBytes(12).toString('base64url')}`)).toBeNull();

    expect((await cache.find(known.key))?.providerId).toBe(known.id);
    expect(lookups.get(known.key)).toBe(1);
    expect(cache.size).toEqual({ known: 1, unknown: 20 });
  });

  it('remembers an unknown key (no second lookup) until it is invalidated', async () => {
    const { cache, lookups } = countingCache({ maxKnown: 10, maxUnknown: 10 });
    await cache.find('pk_never');
    await cache.find('pk_never');
    expect(lookups.get('pk_never')).toBe(1);
    cache.invalidate('pk_never');
    await cache.find('pk_never');
    expect(lookups.get('pk_never')).toBe(2);
  });

  it('caches nothing with a TTL of 0', async () => {
    const known = await createTestProvider(database.db, 'platform');
    let calls = 0;
    const cache = new CredentialCache(database.db, 0, {
      lookup: (key) => ((calls += 1), findCredentialForAuth(database.db, key)),
    });
    await cache.find(known.key);
    await cache.find(known.key);
    expect(calls).toBe(2);
  });

  it('accepts the right secret (the second time without hashing it) and refuses every other, known key or not', async () => {
    const known = await createTestProvider(database.db, 'platform');
    const { cache } = countingCache({ maxKnown: 10, maxUnknown: 10 });
    const credential = await cache.find(known.key);
    expect(cache.secretValid(known.secret, credential)).toBe(true);
    expect(cache.secretValid(known.secret, credential)).toBe(true);
    // Same length as the remembered secret, one character off: compared, then hashed, and refused.
    const lastIndex = known.secret.length - 1;
    const wrong = known.secret.slice(0, lastIndex) + (known.secret[lastIndex] === 'A' ? 'B' : 'A');
    expect(cache.secretValid(wrong, credential)).toBe(false);
    expect(cache.secretValid(`${known.secret}x`, credential)).toBe(false);
    expect(cache.secretValid(known.secret, null)).toBe(false);
    // A credential object that left the cache (invalidated) is not remembered: its secret is hashed again, still right.
    cache.invalidate(known.key);
    expect(cache.secretValid(known.secret, await cache.find(known.key))).toBe(true);
  });
});
