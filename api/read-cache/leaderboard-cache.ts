import type { Executor } from '../../shared/db/client.js';
import { findLeaderboard, type Leaderboard } from '../../shared/db/leaderboard-store.js';

const MAX_BOARDS = 10_000;

/**
 * Leaderboards by id, cached in-process for CHAIN_CACHE_TTL_MS (0 disables
 * it), so a standings read costs no Postgres round trip while its board's
 * entry is warm: the read is then one Redis script (docs/leaderboards.md).
 * A board changes only when archived: this process forgets it at once, the
 * others within the TTL. Concurrent misses share one load.
 */
export class LeaderboardCache {
  private readonly entries = new Map<string, { value: Promise<Leaderboard | null>; expiresAt: number }>();

  constructor(
    private readonly db: Executor,
    private readonly ttlMs: number,
  ) {}

  get(id: string): Promise<Leaderboard | null> {
    if (this.ttlMs <= 0) return findLeaderboard(this.db, id);
    const now = Date.now();
    const cached = this.entries.get(id);
    if (cached && cached.expiresAt > now) return cached.value;
    if (this.entries.size >= MAX_BOARDS) this.entries.clear();
    const value = findLeaderboard(this.db, id);
    const entry = { value, expiresAt: now + this.ttlMs };
    this.entries.set(id, entry);
    // A failed load must not be served from the cache until it expires.
    value.catch(() => {
      if (this.entries.get(id) === entry) this.entries.delete(id);
    });
    return value;
  }

  forget(id: string): void {
    this.entries.delete(id);
  }
}
