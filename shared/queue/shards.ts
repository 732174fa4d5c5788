/**
 * Where the service's Redis keys, queues and channels live (docs/scaling.md,
 * "Redis Cluster"). On one Redis with one matching shard everything keeps the
 * names it always had. On a cluster every multi-key structure needs its keys
 * in one hash slot: BullMQ runs Lua scripts over a queue's keys, so each queue
 * gets a hash-tagged prefix (`{qcr:0}`, `{qcr}`), and each matching shard its
 * own tag, so the shards spread over the cluster's masters.
 */
export interface QueueLayout {
  /** QUEUE_PREFIX without braces: what tags and channel names are made of. */
  base: string;
  /** REDIS_CLUSTER: sharded pub/sub and hash-tagged prefixes. */
  cluster: boolean;
  /** MATCHING_QUEUE_SHARDS. */
  shards: number;
  /** The prefix of the matching queue of `shard` (0 ≤ shard < shards). */
  matchingPrefix(shard: number): string;
  /** The prefix of the webhook delivery queue. */
  webhookPrefix: string;
  /** The prefix of the backtest queue (the webhook queue's hash slot on a cluster). */
  backtestPrefix: string;
}

export function queueLayout(options: { prefix: string; cluster: boolean; shards: number }): QueueLayout {
  const base = options.prefix.replace(/[{}]/g, '') || 'qcr';
  const { cluster, shards } = options;
  // One shard on one Redis: the queue every earlier version used, so an upgrade strands nothing.
  const plain = !cluster && shards === 1;
  return {
    base,
    cluster,
    shards,
    matchingPrefix: (shard) => {
      if (!Number.isInteger(shard) || shard < 0 || shard >= shards)
        throw new RangeError(`no matching shard ${shard} of ${shards}`);
      return plain ? options.prefix : `{${base}:${shard}}`;
    },
    webhookPrefix: cluster ? `{${base}}` : options.prefix,
    backtestPrefix: cluster ? `{${base}}` : options.prefix,
  };
}

/** A single-Redis, single-shard layout for a bare prefix (tests, tools). */
export const plainLayout = (prefix: string): QueueLayout => queueLayout({ prefix, cluster: false, shards: 1 });

/** FNV-1a, 32 bits: stable across processes and versions, cheap enough for every event of an ingest call. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * The matching shard of a user. Events are routed by their sender's user (the
 * provider and the id it sends), re-evaluations by the internal user id: a
 * user's work of one kind always lands in the same queue, in order.
 */
export const shardOf = (userKey: string, shards: number): number => (shards <= 1 ? 0 : fnv1a(userKey) % shards);

/** The user key of an event: its sender and the sender's own id of the user. */
export const senderKey = (providerId: string, userId: string): string => `${providerId}:${userId}`;
