import { type ProgressMessage, progressChannel, progressMessageSchema, registrationChannel } from '../../shared/live/channel.js';
import type { LiveTokenScope } from '../../shared/live/token.js';
import type { Logger } from '../../shared/observability/logger.js';
import type { RedisClient } from '../../shared/queue/connection.js';
import { type ProvidersServingLive, ProviderWatch } from './provider-watch.js';
import { type StreamCapReached, type StreamCaps, StreamRegistry, type StreamTicket } from './stream-registry.js';
import { type SubscriberCommandSender, sendOutsideHandshake } from './subscriber-handshake.js';

export type ProgressListener = (message: ProgressMessage) => void;
type RawListener = (raw: string) => void;

/** A listener on a channel: `stop` removes it; `confirmedLate` (set when Redis had not confirmed within the wait) resolves when it does. */
export interface Listening {
  stop: () => void;
  confirmedLate: Promise<void> | null;
}

export interface LiveHubOptions {
  /** Redis connection in subscriber mode, owned by the hub from here on. */
  redis: RedisClient;
  queuePrefix: string;
  /** Sharded pub/sub (REDIS_CLUSTER=true): SSUBSCRIBE to per-user hash-tagged channels; classic SUBSCRIBE otherwise. */
  sharded?: boolean;
  logger: Logger;
  /** Comment-line keep-alive interval of every stream (the rules require at most 25 s). */
  heartbeatMs?: number;
  /** How long a stream waits for Redis to confirm a subscription before it carries on regardless. */
  subscribeTimeoutMs?: number;
  /** Open-stream caps (default: the LIVE_MAX_STREAMS_* defaults). */
  caps?: StreamCaps;
  /** Which providers' streams may stay open; without it no stream is ever revoked (tests of other things). */
  providersServingLive?: ProvidersServingLive;
  /** How often the providers of open streams are checked (and how long a check of one is trusted). */
  providerCheckMs?: number;
}

const DEFAULT_HEARTBEAT_MS = 20_000;
const DEFAULT_CAPS: StreamCaps = { perUser: 10, perPlatform: 5000, perProcess: 10_000 };

/**
 * One Redis subscriber connection per API process, fanned out to every open
 * live stream. Channels are reference-counted: the first stream of a user
 * subscribes, the last one to leave unsubscribes. ioredis sends commands in
 * order on the one connection, so a subscribe that follows an unsubscribe of
 * the same channel always wins, and it re-subscribes by itself after a
 * reconnect; both hold only because the hub never sends them during the
 * connection's handshake (subscriber-handshake.ts).
 * On a cluster (sharded) it is one connection per master, each holding the
 * SSUBSCRIBEs of its slots, which ioredis moves after a failover.
 * It also holds the open streams (caps, revocation, shutdown).
 */
export class LiveHub {
  readonly heartbeatMs: number;
  readonly streams: StreamRegistry;
  readonly providers: ProviderWatch | null;
  private readonly subscribeTimeoutMs: number;
  private readonly channels = new Map<string, { listeners: Set<RawListener>; ready: Promise<void> }>();
  private readonly reconnectListeners = new Set<() => void>();
  private readonly send: SubscriberCommandSender;
  private closing = false;
  private readonly sharded: boolean;

  constructor(private readonly options: LiveHubOptions) {
    this.heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.sharded = options.sharded ?? false;
    this.subscribeTimeoutMs = options.subscribeTimeoutMs ?? 2_000;
    this.streams = new StreamRegistry(options.caps ?? DEFAULT_CAPS);
    this.send = sendOutsideHandshake(options.redis);
    this.providers = options.providersServingLive
      ? new ProviderWatch({
          check: options.providersServingLive,
          registry: this.streams,
          intervalMs: options.providerCheckMs ?? 2_000,
          logger: options.logger,
        })
      : null;
    options.redis.on(this.sharded ? 'smessage' : 'message', (channel: string, raw: string) => this.deliver(channel, raw));
    // Messages published while the connection was down are lost: streams waiting for something look again.
    let connectedBefore = false;
    options.redis.on('ready', () => {
      if (connectedBefore) for (const listener of [...this.reconnectListeners]) listener();
      connectedBefore = true;
    });
  }

  get closed(): boolean {
    return this.closing;
  }

  /** Number of open streams and subscribed channels (for tests and metrics). */
  get size(): { streams: number; channels: number } {
    return { streams: this.streams.size, channels: this.channels.size };
  }

  /** A place for one more stream of `scope`, or the cap it would pass (the route answers 429). */
  admit(scope: LiveTokenScope): StreamTicket | StreamCapReached {
    return this.streams.admit(scope);
  }

  /**
   * Starts relaying the user's progress messages to `listener`; resolves once
   * Redis confirmed the subscription (or the wait timed out: the subscription
   * then completes when Redis is back). The returned function stops it.
   */
  async subscribe(userId: string, listener: ProgressListener): Promise<() => void> {
    const { stop } = await this.listen(progressChannel(this.options.queuePrefix, userId, this.sharded), (raw) => {
      let message: ProgressMessage;
      try {
        message = progressMessageSchema.parse(JSON.parse(raw));
      } catch (error) {
        this.options.logger.warn({ err: error }, 'ignoring malformed live message');
        return;
      }
      listener(message);
    });
    return stop;
  }

  /**
   * Calls `listener` with the user id when the platform registers `scope`'s
   * user (a registration notice). Resolves like `subscribe`; `confirmedLate`
   * is set when the wait timed out, and resolves once Redis does confirm: a
   * registration before that sent its notice to nobody, so the caller looks
   * for the user again then.
   */
  awaitRegistration(scope: LiveTokenScope, listener: (userId: string) => void): Promise<Listening> {
    return this.listen(
      registrationChannel(this.options.queuePrefix, scope.platformId, scope.platformUserId, this.sharded),
      listener,
    );
  }

  /** Calls `listener` each time the subscriber connection is back after a loss. Returns the removal. */
  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  /** Ends every open stream and releases the subscriber connection (API shutdown). */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.providers?.stop();
    this.streams.endAll();
    this.channels.clear();
    this.reconnectListeners.clear();
    // Dropping the connection drops its subscriptions; no need to wait for a Redis that may be gone.
    this.options.redis.disconnect();
  }

  private async listen(channel: string, listener: RawListener): Promise<Listening> {
    let entry = this.channels.get(channel);
    if (!entry) {
      const { redis } = this.options;
      const subscribed = this.send(() => (this.sharded ? redis.ssubscribe(channel) : redis.subscribe(channel)));
      const ready = subscribed.then(
        () => undefined,
        (error: unknown) => this.options.logger.warn({ err: error, channel }, 'live subscribe failed'),
      );
      entry = { listeners: new Set(), ready };
      this.channels.set(channel, entry);
    }
    entry.listeners.add(listener);
    const confirmed = await this.withTimeout(entry.ready);
    let active = true;
    const stop = () => {
      if (!active) return;
      active = false;
      const current = this.channels.get(channel);
      if (!current) return;
      current.listeners.delete(listener);
      if (current.listeners.size === 0) {
        this.channels.delete(channel);
        const { redis } = this.options;
        if (!this.closing)
          this.send(() => (this.sharded ? redis.sunsubscribe(channel) : redis.unsubscribe(channel))).catch(() => {});
      }
    };
    return { stop, confirmedLate: confirmed ? null : entry.ready };
  }

  private deliver(channel: string, raw: string) {
    const entry = this.channels.get(channel);
    if (!entry) return;
    for (const listener of [...entry.listeners]) listener(raw);
  }

  /** Waits for `ready` at most subscribeTimeoutMs; answers whether it came in time. */
  private async withTimeout(ready: Promise<void>): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.subscribeTimeoutMs);
    });
    try {
      return await Promise.race([ready.then(() => true as const), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }
}
