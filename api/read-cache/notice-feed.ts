import calculateSlot from 'cluster-key-slot';
import type { Cluster, Redis } from 'ioredis';

/** Called with every message of a followed channel (probes included). */
export type NoticeListener = (channel: string, raw: string) => void;

/**
 * The subscriptions that carry change notices to one API process. Whether
 * they deliver is not trusted to connection events: notice-watch.ts publishes
 * probes on `probeChannels` and calls `repair` for those that stay silent.
 */
export interface NoticeFeed {
  /** One channel per subscription whose delivery must be proved: probes are published there. */
  readonly probeChannels: readonly string[];
  /** Subscribes again wherever these probe channels' subscriptions are held (their probes went unanswered). */
  repair(channels: readonly string[]): void;
  /** `listener` runs when a connection of the feed closes: notices may be lost from then on. */
  onDown(listener: () => void): void;
  /**
   * `listener` runs once channels subscribed before are subscribed again (moved
   * to a new owner, repaired, a reconnect): a notice published between the old
   * subscription's end and the new one's start was lost, however short the gap.
   */
  onResubscribed(listener: (channels: readonly string[]) => void): void;
  close(): void;
}

/** Runs the listeners with the channels of a subscription that were subscribed before it. */
function resubscriptions() {
  const listeners: ((channels: readonly string[]) => void)[] = [];
  const subscribedBefore = new Set<string>();
  return {
    listen: (listener: (channels: readonly string[]) => void) => listeners.push(listener),
    subscribed(channels: readonly string[]) {
      const again = channels.filter((channel) => subscribedBefore.has(channel));
      for (const channel of channels) subscribedBefore.add(channel);
      if (again.length > 0) for (const run of listeners) run(again);
    },
  };
}

const escapeGlob = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');

/**
 * One Redis: a connection of its own with a pattern over every user's live
 * channel (the worker's progress notices) and plain channels (change notices).
 * The pattern's probes go on `patternProbe`, a channel the pattern matches.
 */
export function openClassicFeed(options: {
  connection: Redis;
  /** The progress channel's text before the user id; the pattern is it followed by `*`. */
  patternStart: string;
  patternProbe: string;
  channels: readonly string[];
  listener: NoticeListener;
}): NoticeFeed {
  const { connection, channels, listener } = options;
  const pattern = `${escapeGlob(options.patternStart)}*`;
  const resubscribed = resubscriptions();
  const subscribe = () =>
    Promise.all([connection.psubscribe(pattern), connection.subscribe(...channels)]).then(
      () => resubscribed.subscribed([pattern, ...channels]),
      () => {
        // A failed subscribe shows as a silent probe, which repairs it.
      },
    );
  connection.on('pmessage', (matched: string, channel: string, raw: string) => {
    if (matched === pattern) listener(channel, raw);
  });
  connection.on('message', listener);
  connection.on('ready', () => void subscribe());
  const down: (() => void)[] = [];
  connection.on('close', () => {
    for (const run of down) run();
  });
  return {
    probeChannels: [options.patternProbe, ...channels],
    repair() {
      if (connection.status === 'ready') void subscribe();
    },
    onDown: (run) => down.push(run),
    onResubscribed: resubscribed.listen,
    close: () => connection.disconnect(),
  };
}

interface Holder {
  connection: Redis;
  channels: Set<string>;
}

/**
 * A Redis Cluster: sharded channels, each subscribed on the master that owns
 * its slot, on a connection per master that the feed opens itself. The
 * owners come from the cluster client's slot map; a refresh of that map (a
 * failover, a slot move, ioredis' periodic refresh) moves each subscription
 * to its new owner, and `repair` asks for a refresh first.
 */
export function openShardedFeed(options: {
  cluster: Cluster;
  connect: (node: { host: string; port: number }) => Redis;
  channels: readonly string[];
  listener: NoticeListener;
}): NoticeFeed {
  const { cluster, channels, listener } = options;
  const holders = new Map<string, Holder>();
  const down: (() => void)[] = [];
  let closed = false;

  const resubscribed = resubscriptions();

  const ownerOf = (channel: string): string | undefined => cluster.slots[calculateSlot(channel)]?.[0];
  // SSUBSCRIBE takes channels of one slot: one command per channel. A failed one shows as a silent probe.
  const subscribe = (holder: Holder, names: Iterable<string>) => {
    if (holder.connection.status !== 'ready') return;
    // One by one: ioredis never settles an SSUBSCRIBE answered MOVED (a slot still moving).
    for (const channel of names)
      void holder.connection.ssubscribe(channel).then(
        () => resubscribed.subscribed([channel]),
        () => {},
      );
  };

  const open = (nodeKey: string): Holder => {
    const separator = nodeKey.lastIndexOf(':');
    const connection = options.connect({ host: nodeKey.slice(0, separator), port: Number(nodeKey.slice(separator + 1)) });
    const holder: Holder = { connection, channels: new Set() };
    connection.on('smessage', listener);
    connection.on('ready', () => subscribe(holder, holder.channels));
    connection.on('close', () => {
      if (!closed) for (const run of down) run();
    });
    holders.set(nodeKey, holder);
    return holder;
  };

  const assign = () => {
    if (closed) return;
    const wanted = new Map<string, string[]>();
    for (const channel of channels) {
      const owner = ownerOf(channel);
      if (owner !== undefined) wanted.set(owner, [...(wanted.get(owner) ?? []), channel]);
    }
    for (const [nodeKey, holder] of holders) {
      const keep = new Set(wanted.get(nodeKey) ?? []);
      if (keep.size === 0) {
        holders.delete(nodeKey);
        holder.connection.disconnect();
        continue;
      }
      for (const channel of holder.channels) {
        if (keep.has(channel)) continue;
        holder.channels.delete(channel);
        if (holder.connection.status === 'ready') void holder.connection.sunsubscribe(channel).catch(() => {});
      }
    }
    for (const [nodeKey, names] of wanted) {
      const holder = holders.get(nodeKey) ?? open(nodeKey);
      const added = names.filter((channel) => !holder.channels.has(channel));
      for (const channel of added) holder.channels.add(channel);
      subscribe(holder, added);
    }
  };

  cluster.on('refresh', assign);
  assign();
  return {
    probeChannels: channels,
    repair(silent) {
      cluster.refreshSlotsCache(() => {
        assign();
        for (const channel of silent) {
          const owner = ownerOf(channel);
          const holder = owner === undefined ? undefined : holders.get(owner);
          if (!holder) continue;
          // A connection ioredis gave up on is replaced; a live one subscribes again (SSUBSCRIBE is idempotent).
          if (holder.connection.status === 'end') {
            holders.delete(owner!);
            assign();
          } else subscribe(holder, [channel]);
        }
      });
    },
    onDown: (run) => down.push(run),
    onResubscribed: resubscribed.listen,
    close() {
      closed = true;
      cluster.off('refresh', assign);
      for (const holder of holders.values()) holder.connection.disconnect();
      holders.clear();
    },
  };
}
