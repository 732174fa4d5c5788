import { type ChainDefinition, loadLiveChains } from '../../shared/db/chain-store.js';
import type { Executor } from '../../shared/db/client.js';
import { ActiveAnswerCache, type AnswerCacheLimits } from './active-answer-cache.js';

const MAX_PLATFORMS = 10_000;

/**
 * Definitions of each platform's chains with status `active` that have not
 * ended, cached in-process for CHAIN_CACHE_TTL_MS (0 disables it). Reads of
 * GET active then cost no definition queries at all while the entry is warm.
 *
 * Entries hold chains whose window has not opened yet too: the caller
 * applies `start_date <= now < end_date` with its own clock on every read,
 * so a chain starts or ends on time whatever the age of the entry. A change
 * of definitions drops the entry in every API process through a change
 * notice (change-notices.ts); the TTL bounds the age of an entry whose notice
 * was lost.
 * Concurrent misses share one load, so a cold cache is not a stampede.
 *
 * `answers` holds each user's serialised answer built on these definitions
 * (active-answer-cache.ts) for `answers.ttlMs`: change notices drop them, and
 * a definitions change reaches them through the fingerprint within this
 * cache's TTL. Off with this cache (there would be no fingerprint to follow).
 */
export class ActiveChainCache {
  private readonly entries = new Map<string, { value: Promise<ChainDefinition[]>; expiresAt: number }>();
  readonly answers: ActiveAnswerCache;

  constructor(
    private readonly db: Executor,
    private readonly ttlMs: number,
    answers: AnswerCacheLimits & { ttlMs?: number } = {},
  ) {
    this.answers = new ActiveAnswerCache(ttlMs > 0 ? (answers.ttlMs ?? ttlMs) : 0, answers);
  }

  get(platformId: string): Promise<ChainDefinition[]> {
    if (this.ttlMs <= 0) return this.load(platformId);
    const now = Date.now();
    const cached = this.entries.get(platformId);
    if (cached && cached.expiresAt > now) return cached.value;
    if (this.entries.size >= MAX_PLATFORMS) this.entries.clear();
    const value = this.load(platformId);
    const entry = { value, expiresAt: now + this.ttlMs };
    this.entries.set(platformId, entry);
    // A failed load must not be served from the cache until it expires.
    value.catch(() => {
      if (this.entries.get(platformId) === entry) this.entries.delete(platformId);
    });
    return value;
  }

  invalidate(platformId: string): void {
    this.entries.delete(platformId);
  }

  /** Change notices may have been missed: every platform's definitions are read again. */
  invalidateAll(): void {
    this.entries.clear();
  }

  private load(platformId: string): Promise<ChainDefinition[]> {
    return loadLiveChains(this.db, platformId);
  }
}
