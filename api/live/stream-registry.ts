import type { LiveTokenScope } from '../../shared/live/token.js';

/** Most open streams per platform user, per platform and in this process (LIVE_MAX_STREAMS_*). */
export interface StreamCaps {
  perUser: number;
  perPlatform: number;
  perProcess: number;
}

/** Which cap a refused stream ran into. */
export type StreamCapReached = 'user' | 'platform' | 'process';

/** An admitted stream's place: `onEnd` says how to end it from outside, `release` frees it (idempotent). */
export interface StreamTicket {
  onEnd(end: () => void): void;
  release(): void;
}

interface PlatformStreams {
  perUser: Map<string, number>;
  ends: Set<{ end: () => void }>;
}

/**
 * The open live streams of this process, by platform and user. It enforces
 * the caps when a stream opens, and can end every stream of one platform
 * (its provider was deactivated) or all of them (shutdown). Counts are per
 * process: with N API replicas a user may hold up to N x the per-user cap.
 */
export class StreamRegistry {
  private total = 0;
  private readonly platforms = new Map<string, PlatformStreams>();

  constructor(readonly caps: StreamCaps) {}

  get size(): number {
    return this.total;
  }

  /** The platforms with at least one open stream. */
  platformIds(): string[] {
    return [...this.platforms.keys()];
  }

  /** A ticket for one more stream of `scope`, or the cap it would pass. */
  admit(scope: LiveTokenScope): StreamTicket | StreamCapReached {
    const platform = this.platforms.get(scope.platformId) ?? { perUser: new Map<string, number>(), ends: new Set() };
    const userStreams = platform.perUser.get(scope.platformUserId) ?? 0;
    if (this.total >= this.caps.perProcess) return 'process';
    if (platform.ends.size >= this.caps.perPlatform) return 'platform';
    if (userStreams >= this.caps.perUser) return 'user';

    this.platforms.set(scope.platformId, platform);
    platform.perUser.set(scope.platformUserId, userStreams + 1);
    const entry = { end: () => {} };
    platform.ends.add(entry);
    this.total += 1;
    let released = false;
    return {
      onEnd: (end) => {
        entry.end = end;
      },
      release: () => {
        if (released) return;
        released = true;
        this.total -= 1;
        platform.ends.delete(entry);
        const left = (platform.perUser.get(scope.platformUserId) ?? 1) - 1;
        if (left > 0) platform.perUser.set(scope.platformUserId, left);
        else platform.perUser.delete(scope.platformUserId);
        if (platform.ends.size === 0) this.platforms.delete(scope.platformId);
      },
    };
  }

  /** Ends every open stream of a platform; returns how many. */
  endPlatform(platformId: string): number {
    const platform = this.platforms.get(platformId);
    if (!platform) return 0;
    const entries = [...platform.ends];
    for (const entry of entries) entry.end();
    return entries.length;
  }

  /** Ends every open stream (shutdown). */
  endAll(): void {
    for (const platformId of this.platformIds()) this.endPlatform(platformId);
  }
}
