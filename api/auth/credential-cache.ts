import { timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { verifySecret } from '../../shared/auth/secrets.js';
import type { Database } from '../../shared/db/client.js';
import { type CredentialForAuth, findCredentialForAuth } from '../../shared/db/credential-store.js';

export type CredentialLookup = (key: string) => Promise<CredentialForAuth | null>;

export interface CredentialCacheOptions {
  /** Known keys kept at most (least recently used go first). */
  maxKnown?: number;
  /** Unknown keys remembered at most: small, and apart from the known ones. */
  maxUnknown?: number;
  /** The Postgres lookup (tests count its calls). */
  lookup?: CredentialLookup;
}

const DEFAULT_MAX_KNOWN = 10_000;
const DEFAULT_MAX_UNKNOWN = 1_000;

/**
 * Credential lookups cached in-process for a few seconds, so the hot path
 * does not read Postgres on every request. The TTL bounds how long an admin
 * change (deactivation, permissions) takes to apply; it is capped at 5 s by config.
 *
 * Two bounded LRU caches: known credentials, and a small one of unknown keys
 * (so a flood of bad keys does not reach Postgres on every request). Keeping
 * them apart means random keys only ever evict other random keys: the known
 * credentials stay cached whatever arrives.
 */
export class CredentialCache {
  private readonly known: LRUCache<string, CredentialForAuth> | null;
  private readonly unknown: LRUCache<string, true> | null;
  private readonly lookup: CredentialLookup;
  // The secret last verified against each cached credential object: gone with the object when it leaves the cache.
  private readonly verified = new WeakMap<CredentialForAuth, Buffer>();

  constructor(db: Database, ttlMs: number, options: CredentialCacheOptions = {}) {
    this.lookup = options.lookup ?? ((key) => findCredentialForAuth(db, key));
    // lru-cache reads ttl 0 as "never expires": a TTL of 0 here means no caching at all.
    this.known = ttlMs > 0 ? new LRUCache({ max: options.maxKnown ?? DEFAULT_MAX_KNOWN, ttl: ttlMs }) : null;
    this.unknown = ttlMs > 0 ? new LRUCache({ max: options.maxUnknown ?? DEFAULT_MAX_UNKNOWN, ttl: ttlMs }) : null;
  }

  /** Forgets one key, so this process applies an admin change to it at once (others within the TTL). */
  invalidate(key: string): void {
    this.known?.delete(key);
    this.unknown?.delete(key);
  }

  /** Forgets every key (a provider's status changed: all its credentials are affected). */
  clear(): void {
    this.known?.clear();
    this.unknown?.clear();
  }

  /** Entries held (for tests and metrics). */
  get size(): { known: number; unknown: number } {
    return { known: this.known?.size ?? 0, unknown: this.unknown?.size ?? 0 };
  }

  /** The cached answer for `key` without waiting: a credential, null (known unknown), or undefined (ask `find`). */
  cached(key: string): CredentialForAuth | null | undefined {
    const cached = this.known?.get(key);
    if (cached) return cached;
    return this.unknown?.has(key) ? null : undefined;
  }

  /**
   * Whether `secret` is the credential's (`verifySecret`, the same work for
   * an unknown key). A secret that matched this cached credential before is
   * recognised by a constant-time comparison with it instead of a SHA-256:
   * hashing on every request is a real share of a cached read's CPU. Only the right secret takes
   * the shorter path, so its timing tells nothing that holding it does not.
   */
  secretValid(secret: string, credential: CredentialForAuth | null): boolean {
    const known = credential ? this.verified.get(credential) : undefined;
    if (known !== undefined && known.length === Buffer.byteLength(secret)) {
      if (timingSafeEqual(known, Buffer.from(secret))) return true;
    }
    const valid = verifySecret(secret, credential?.secretHash);
    if (valid && credential && this.known?.get(credential.key) === credential) this.verified.set(credential, Buffer.from(secret));
    return valid;
  }

  async find(key: string): Promise<CredentialForAuth | null> {
    const cached = this.cached(key);
    if (cached !== undefined) return cached;
    const value = await this.lookup(key);
    if (value) this.known?.set(key, value);
    else this.unknown?.set(key, true);
    return value;
  }
}
