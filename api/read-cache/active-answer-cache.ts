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
 * - the clock: an entry expires when a chain window opens or closes, when its
 *   live token's issue window ends, and in any case after `ttlMs` (the bound
 *   on staleness should a notification be lost, as for the chain cache).
 * Unknown users are never stored: their registration notifies nobody.
 * Nothing is served or stored unless `following` is on: the owner turns it
 * on once the notifications are subscribed, and off while they may be lost.
 */
export interface CachedAnswer {
  /** The whole JSON response body, as bytes: written to the socket as is, with no string conversion per answer. */
  body: Buffer;
  /** Strong entity tag of `body`, quoted. */
  etag: string;
  definitionsFingerprint: string;
  userId: string;
  expiresAtMs: number;
}

interface Invalidation {
  sequence: number;
  key?: string;
  userId?: string;
}

// A fill takes a round trip; this many invalidations during one is already far beyond any real load.
const RECENT_INVALIDATIONS = 1024;

export const answerKey = (platformId: string, platformUserId: string) => `${platformId}\u0000${platformUserId}`;

export class ActiveAnswerCache {
  private readonly entries = new Map<string, CachedAnswer>();
  private readonly keyByUserId = new Map<string, string>();
  private bytes = 0;
  private sequence = 0;
  private readonly recent: Invalidation[] = [];
  private following = false;

  constructor(
    readonly ttlMs: number,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  get enabled(): boolean {
    return this.ttlMs > 0 && this.following;
  }

  /** On: notifications arrive, answers may be kept. Off: they may be lost; everything is dropped. */
  follow(on: boolean): void {
    this.clear();
    this.following = on;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  get(key: string, definitionsFingerprint: string, nowMs: number): CachedAnswer | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAtMs > nowMs && entry.definitionsFingerprint === definitionsFingerprint) return entry;
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
    this.entries.set(key, answer);
    this.keyByUserId.set(answer.userId, key);
    this.bytes += answer.body.length;
    // Oldest first (Map order): a bounded cache of bodies, whatever the number of users read.
    for (const [oldest] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldest);
    }
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

  /** Notifications may have been missed (the subscription was down): forget everything. */
  clear(): void {
    this.sequence += RECENT_INVALIDATIONS + 1;
    this.recent.length = 0;
    this.entries.clear();
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
    }
    return false;
  }

  private remove(key: string) {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    if (this.keyByUserId.get(entry.userId) === key) this.keyByUserId.delete(entry.userId);
    this.bytes -= entry.body.length;
  }
}
