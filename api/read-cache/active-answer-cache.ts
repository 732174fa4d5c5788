import { LRUCache } from 'lru-cache';

/**
 * The serialised answer of GET active per (platform, platform user), kept
 * until anything in it can change, so a repeated read or a revalidation costs
 * no database work. What changes an answer, and what drops it here:
 * - the user's progress: the worker publishes every change (Redis pub/sub,
 *   the live channel), and every replica calls `invalidateUser`;
 * - a reward claim: the replica that granted it calls `invalidateKey` and
 *   publishes it to the others;
 * - the platform's chain definitions or status: an entry is only served for
 *   the same definitions fingerprint it was built from (see active-answer.ts);
 * - the clock: an entry expires when a chain window opens or closes, and in
 *   any case after `ttlMs` (ANSWER_CACHE_TTL_MS: a safety net should a
 *   notice be lost, not the way answers normally go).
 * The live token inside a body is not a change: it is renewed in place
 * (`renewToken`) and left out of the tag.
 *
 * Two tiers: the bodies, bounded by bytes, and a compact index of tags for
 * many more users, so a revalidation of an unchanged user whose body was
 * evicted is still a 304 with no database work. Every tagged key may have a
 * body, never the other way round; an invalidation drops both.
 *
 * Unknown users are never stored: their registration notifies nobody.
 * Nothing is served or stored unless `following` is on: the owner turns it
 * on once the notifications are subscribed, and off while they may be lost.
 */
export interface AnswerTag {
  /** Strong entity tag, quoted: a digest of the body without its live token. */
  etag: string;
  definitionsFingerprint: string;
  userId: string;
  expiresAtMs: number;
}

export interface CachedAnswer extends AnswerTag {
  /** The whole JSON response body, as bytes: written to the socket as is, with no string conversion per answer. */
  body: Buffer;
  /** Where the live token's characters sit in `body` (UTF-8 bytes). */
  tokenAt: number;
  tokenLength: number;
  /** The issue time the body's token was signed for. */
  tokenIssuedAtMs: number;
}

export interface AnswerCacheLimits {
  /** Bytes of bodies kept at most (oldest stored out first). */
  maxBytes?: number;
  /** Users whose tag is kept at most (least recently used out first); about 400 bytes each (80 MiB full). */
  maxTags?: number;
}

interface Invalidation {
  sequence: number;
  key?: string;
  userId?: string;
  platformId?: string;
}

// A fill takes a round trip; this many invalidations during one is already far beyond any real load.
const RECENT_INVALIDATIONS = 1024;

export const answerKey = (platformId: string, platformUserId: string) => `${platformId}\u0000${platformUserId}`;

export class ActiveAnswerCache {
  private readonly bodies = new Map<string, CachedAnswer>();
  private readonly tags: LRUCache<string, AnswerTag>;
  private readonly keyByUserId = new Map<string, string>();
  private readonly maxBytes: number;
  private bytes = 0;
  private sequence = 0;
  private readonly recent: Invalidation[] = [];
  private following = false;

  constructor(
    readonly ttlMs: number,
    limits: AnswerCacheLimits = {},
  ) {
    this.maxBytes = limits.maxBytes ?? 32 * 1024 * 1024;
    this.tags = new LRUCache<string, AnswerTag>({
      max: limits.maxTags ?? 200_000,
      // A tag pushed out takes its body and its user's index entry with it (every body has its tag).
      dispose: (tag, key, reason) => {
        if (reason === 'evict') this.forget(key, tag.userId);
      },
    });
  }

  get enabled(): boolean {
    return this.ttlMs > 0 && this.following;
  }

  /** On: notifications arrive, answers may be kept. Off: they may be lost; everything is dropped. */
  follow(on: boolean): void {
    this.clear();
    this.following = on;
  }

  get size(): { entries: number; bytes: number; tags: number } {
    return { entries: this.bodies.size, bytes: this.bytes, tags: this.tags.size };
  }

  /** The stored answer with its body, while still current. */
  get(key: string, definitionsFingerprint: string, nowMs: number): CachedAnswer | undefined {
    const entry = this.bodies.get(key);
    if (!entry) return undefined;
    if (current(entry, definitionsFingerprint, nowMs)) {
      // A read is a use of the tag too: a user read often must not lose its tag, and so its body, to the LRU.
      this.tags.get(key);
      return entry;
    }
    this.remove(key);
    return undefined;
  }

  /** The current tag of the answer, body kept or not. */
  tag(key: string, definitionsFingerprint: string, nowMs: number): string | undefined {
    const entry = this.tags.get(key);
    if (!entry) return undefined;
    if (current(entry, definitionsFingerprint, nowMs)) return entry.etag;
    this.remove(key);
    return undefined;
  }

  /** Taken before reading the database: `store` refuses an answer read before a later invalidation of its user. */
  ticket(): number {
    return this.sequence;
  }

  store(ticket: number, key: string, answer: CachedAnswer): void {
    if (!this.enabled || this.invalidatedSince(ticket, key, answer.userId)) return;
    this.remove(key);
    const { etag, definitionsFingerprint, userId, expiresAtMs } = answer;
    // Its own small object: the index must not hold the body alive once the body is evicted.
    this.tags.set(key, { etag, definitionsFingerprint, userId, expiresAtMs });
    this.keyByUserId.set(userId, key);
    this.bodies.set(key, answer);
    this.bytes += answer.body.length;
    // Oldest first (Map order): a bounded cache of bodies, whatever the number of users read; their tags stay.
    for (const [oldest, entry] of this.bodies) {
      if (this.bytes <= this.maxBytes) break;
      this.dropBody(oldest, entry);
    }
  }

  /** Swaps the body's live token for one issued later: same answer, same tag. */
  renewToken(key: string, entry: CachedAnswer, token: string, issuedAtMs: number): void {
    const { body, tokenAt, tokenLength } = entry;
    const renewed = Buffer.concat([body.subarray(0, tokenAt), Buffer.from(token), body.subarray(tokenAt + tokenLength)]);
    if (this.bodies.get(key) === entry) this.bytes += renewed.length - body.length;
    entry.body = renewed;
    entry.tokenLength = renewed.length - body.length + tokenLength;
    entry.tokenIssuedAtMs = issuedAtMs;
  }

  /** The user's progress changed (by service-side user id). */
  invalidateUser(userId: string): void {
    this.note({ sequence: ++this.sequence, userId });
    const key = this.keyByUserId.get(userId);
    if (key !== undefined) this.remove(key);
  }

  /** Something else in the answer changed (a claim), by platform and platform user. */
  invalidateKey(key: string): void {
    this.note({ sequence: ++this.sequence, key });
    this.remove(key);
  }

  /** Every answer of a platform changed at once (its test-mode data was reset), by platform id. */
  invalidatePlatform(platformId: string): void {
    this.note({ sequence: ++this.sequence, platformId });
    const prefix = answerKey(platformId, '');
    for (const key of [...this.tags.keys()]) if (key.startsWith(prefix)) this.remove(key);
  }

  /** Notifications may have been missed (the subscription was down): forget everything. */
  clear(): void {
    this.sequence += RECENT_INVALIDATIONS + 1;
    this.recent.length = 0;
    this.bodies.clear();
    this.tags.clear();
    this.keyByUserId.clear();
    this.bytes = 0;
  }

  private note(invalidation: Invalidation) {
    this.recent.push(invalidation);
    if (this.recent.length > RECENT_INVALIDATIONS) this.recent.shift();
  }

  private invalidatedSince(ticket: number, key: string, userId: string): boolean {
    if (ticket === this.sequence) return false;
    if (this.sequence - ticket > this.recent.length) return true;
    for (let i = this.recent.length - 1; i >= 0; i -= 1) {
      const invalidation = this.recent[i]!;
      if (invalidation.sequence <= ticket) break;
      if (invalidation.key === key || invalidation.userId === userId) return true;
      if (invalidation.platformId !== undefined && key.startsWith(answerKey(invalidation.platformId, ''))) return true;
    }
    return false;
  }

  private remove(key: string) {
    const tag = this.tags.peek(key);
    if (!tag) return;
    this.tags.delete(key);
    this.forget(key, tag.userId);
  }

  private forget(key: string, userId: string) {
    const body = this.bodies.get(key);
    if (body) this.dropBody(key, body);
    if (this.keyByUserId.get(userId) === key) this.keyByUserId.delete(userId);
  }

  private dropBody(key: string, entry: CachedAnswer) {
    this.bodies.delete(key);
    this.bytes -= entry.body.length;
  }
}

const current = (entry: AnswerTag, definitionsFingerprint: string, nowMs: number) =>
  entry.expiresAtMs > nowMs && entry.definitionsFingerprint === definitionsFingerprint;
