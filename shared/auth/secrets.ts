import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { KEY_PREFIXES, type Mode } from '../domain/test-mode.js';

/** 32 random bytes (256 bits); prefixes make a leaked value recognisable in a scanner, and say its mode (docs/test-mode.md). */
export const generateSecret = (mode: Mode = 'live'): string =>
  `${KEY_PREFIXES[mode].secret}_${randomBytes(32).toString('base64url')}`;
export const generateKey = (mode: Mode = 'live'): string => `${KEY_PREFIXES[mode].key}_${randomBytes(18).toString('base64url')}`;
export const generateOpaqueToken = (prefix: string): string => `${prefix}_${randomBytes(32).toString('base64url')}`;

export const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** Compares the hash of a presented secret with a stored hash in constant time. */
function secretMatches(presented: string, storedHash: string): boolean {
  const presentedHash = Buffer.from(hashSecret(presented), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return stored.length === presentedHash.length && timingSafeEqual(presentedHash, stored);
}

// The hash of a secret nobody holds: what an unknown key's secret is checked against.
const UNKNOWN_KEY_HASH = hashSecret(generateSecret());

/**
 * Whether `presented` is the secret of a credential whose stored hash is
 * `storedHash`; for an unknown key (null) the same work is done against a
 * hash nobody holds, so an unknown key and a wrong secret take the same time
 * and the answer does not tell whether a key exists.
 */
export function verifySecret(presented: string, storedHash: string | null | undefined): boolean {
  const matches = secretMatches(presented, storedHash ?? UNKNOWN_KEY_HASH);
  return matches && storedHash != null;
}
