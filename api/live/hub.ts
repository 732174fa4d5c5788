import type { Redis } from 'ioredis';
import { progressChannel, progressMessageSchema, type ProgressMessage } from '../../shared/live/channel.js';
import type { Logger } from '../../shared/observability/logger.js';

export type ProgressListener = (message: ProgressMessage) => void;

export interface LiveHubOptions {
  /** Redis connection in subscriber mode, owned by the hub from here on. */
  redis: Redis;
  queuePrefix: string;
  logger: Logger;
  /** Comment-line keep-alive interval of every stream (the rules require at most 25 s). */
  heartbeatMs?: number;
  /** How often a stream whose user is not registered yet looks for them again. */
  userPollMs?: number;
  /** How long a stream waits for Redis to confirm a subscription before it carries on regardless. */
  subscribeTimeoutMs?: number;
}

export const DEFAULT_HEARTBEAT_MS = 20_000;
export const DEFAULT_USER_POLL_MS = 5_000;

/**
 * One Redis subscriber connection per API process, fanned out to every open
 * live stream. Channels are reference-counted: the first stream of a user
 * subscribes, the last one to leave unsubscribes. ioredis sends commands in
 * order on the one connection, so a subscribe that follows an unsubscribe of
 * the same channel always wins, and it re-subscribes by itself after a reconnect.
 */
export class LiveHub {
  readonly heartbeatMs: number;
  readonly userPollMs: number;
  private readonly subscribeTimeoutMs: number;
  private readonly channels = new Map<string, { listeners: Set<ProgressListener>; ready: Promise<void> }>();
  private readonly streams = new Set<() => void>();
  private closing = false;

  constructor(private readonly options: LiveHubOptions) {
    this.heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.userPollMs = options.userPollMs ?? DEFAULT_USER_POLL_MS;
    this.subscribeTimeoutMs = options.subscribeTimeoutMs ?? 2_000;
    options.redis.on('message', (channel: string, raw: string) => this.deliver(channel, raw));
  }

  get closed(): boolean {
    return this.closing;
  }

  /** Number of open streams and subscribed channels (for tests and metrics). */
  get size(): { streams: number; channels: number } {
    return { streams: this.streams.size, channels: this.channels.size };
  }

  /**
   * Starts relaying the user's progress messages to `listener`; resolves once
   * Redis confirmed the subscription (or the wait timed out: the subscription
   * then completes when Redis is back). The returned function stops it.
   */
  async subscribe(userId: string, listener: ProgressListener): Promise<() => void> {
    const channel = progressChannel(this.options.queuePrefix, userId);
    let entry = this.channels.get(channel);
    if (!entry) {
      const ready = this.options.redis.subscribe(channel).then(
        () => undefined,
        (error: unknown) => this.options.logger.warn({ err: error, channel }, 'live subscribe failed'),
      );
      entry = { listeners: new Set(), ready };
      this.channels.set(channel, entry);
    }
    entry.listeners.add(listener);
    await this.withTimeout(entry.ready);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      const current = this.channels.get(channel);
      if (!current) return;
      current.listeners.delete(listener);
      if (current.listeners.size === 0) {
        this.channels.delete(channel);
        if (!this.closing) this.options.redis.unsubscribe(channel).catch(() => {});
      }
    };
  }

  /** Registers an open stream; `end` is called when the hub closes. Returns the deregistration. */
  attach(end: () => void): () => void {
    this.streams.add(end);
    return () => this.streams.delete(end);
  }

  /** Ends every open stream and releases the subscriber connection (API shutdown). */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    for (const end of [...this.streams]) end();
    this.streams.clear();
    this.channels.clear();
    // Dropping the connection drops its subscriptions; no need to wait for a Redis that may be gone.
    this.options.redis.disconnect();
  }

  private deliver(channel: string, raw: string) {
    const entry = this.channels.get(channel);
    if (!entry) return;
    let message: ProgressMessage;
    try {
      message = progressMessageSchema.parse(JSON.parse(raw));
    } catch (error) {
      this.options.logger.warn({ err: error, channel }, 'ignoring malformed live message');
      return;
    }
    for (const listener of [...entry.listeners]) listener(message);
  }

  private async withTimeout(ready: Promise<void>) {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.subscribeTimeoutMs);
    });
    try {
      await Promise.race([ready, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }
}
