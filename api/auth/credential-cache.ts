import type { Database } from '../../shared/db/client.js';
import { findCredentialForAuth, type CredentialForAuth } from '../../shared/db/credential-store.js';

const MAX_ENTRIES = 10_000;

/**
 * Credential lookups cached in-process for a few seconds, so the hot path
 * does not read Postgres on every request. The TTL bounds how long an admin
 * change (deactivation, permissions) takes to apply; it is capped at 5 s by config.
 * Unknown keys are cached too (as null) so a flood of bad keys cannot hammer Postgres.
 */
export class CredentialCache {
  private readonly entries = new Map<string, { value: CredentialForAuth | null; expiresAt: number }>();

  constructor(
    private readonly db: Database,
    private readonly ttlMs: number,
  ) {}

  /** Forgets one key, so this process applies an admin change to it at once (others within the TTL). */
  invalidate(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets every key (a provider's status changed: all its credentials are affected). */
  clear(): void {
    this.entries.clear();
  }

  async find(key: string): Promise<CredentialForAuth | null> {
    const now = Date.now();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) return cached.value;

    const value = await findCredentialForAuth(this.db, key);
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, { value, expiresAt: now + this.ttlMs });
    return value;
  }
}
