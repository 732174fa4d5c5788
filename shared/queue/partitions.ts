/**
 * Where the service's Redis keys, queues and channels live (docs/scaling.md).
 * Matching work is split by user into MATCHING_PARTITIONS matching partitions,
 * each its own BullMQ queue; live workers share them out through leases
 * (worker/partition-leases.ts). On a cluster every multi-key structure needs
 * its keys in one hash slot: BullMQ runs Lua scripts over a queue's keys, so
 * each queue gets a hash-tagged prefix (`{qcr:0}`, `{qcr}`), and each
 * partition its own tag, so the partitions spread over the cluster's masters.
 * A partition's lease key carries the partition's tag, so it lives in the
 * same slot as the queue it guards.
 */
export interface QueueLayout {
  /** QUEUE_PREFIX without braces: what tags and channel names are made of. */
  base: string;
  /** REDIS_CLUSTER: sharded pub/sub and hash-tagged prefixes. */
  cluster: boolean;
  /** MATCHING_PARTITIONS. */
  partitions: number;
  /** The prefix of the matching queue of `partition` (0 ≤ partition < partitions). */
  matchingPrefix(partition: number): string;
  /**
   * The single matching queue of versions before partitions (one Redis, the bare
   * QUEUE_PREFIX) when it is not partition 0's own: the holder of partition 0
   * drains it, so jobs left there by an upgrade are matched. Null when there is none.
   */
  legacyMatchingPrefix: string | null;
  /** The key of `partition`'s lease: the id of the worker consuming it (in the partition's hash slot). */
  leaseKey(partition: number): string;
  /** Keys of the partition coordination that are not per partition, all in one hash slot. */
  coordination: {
    /** The deployment's partition count, stored by the first process that starts. */
    partitionCount: string;
    /** Sorted set: live matching workers by the Redis time they were last seen. */
    workers: string;
    /** Hash: what each live worker said of itself (host, pid, pins), by worker id. */
    workerInfo: string;
    /** Stream: partition leases taken, handed back and lost, for operators and the lease history check. */
    history: string;
  };
  /** The prefix of the webhook delivery queue. */
  webhookPrefix: string;
  /** The prefix of the backtest queue (the webhook queue's hash slot on a cluster). */
  backtestPrefix: string;
  /** The prefix of the auto-claim queue (the webhook queue's hash slot on a cluster). */
  autoClaimPrefix: string;
}

export function queueLayout(options: { prefix: string; cluster: boolean; partitions: number }): QueueLayout {
  const base = options.prefix.replace(/[{}]/g, '') || 'qcr';
  const { cluster, partitions } = options;
  // One partition on one Redis: the queue every earlier version used, so an upgrade strands nothing.
  const plain = !cluster && partitions === 1;
  const matchingPrefix = (partition: number) => {
    if (!Number.isInteger(partition) || partition < 0 || partition >= partitions)
      throw new RangeError(`no matching partition ${partition} of ${partitions}`);
    return plain ? options.prefix : `{${base}:${partition}}`;
  };
  // On a cluster the unpartitioned keys share the webhook queue's tag; on one Redis they keep the bare prefix.
  const shared = cluster ? `{${base}}` : options.prefix;
  return {
    base,
    cluster,
    partitions,
    matchingPrefix,
    // A cluster never had a bare queue: BullMQ's keys without a tag cannot live on one.
    legacyMatchingPrefix: plain || cluster ? null : options.prefix,
    // Beside the queue's own `…:matching:…` keys, never among them.
    leaseKey: (partition) => `${matchingPrefix(partition)}:partition-lease`,
    coordination: {
      partitionCount: `${shared}:partitions:count`,
      workers: `${shared}:partitions:workers`,
      workerInfo: `${shared}:partitions:worker-info`,
      history: `${shared}:partitions:history`,
    },
    webhookPrefix: shared,
    backtestPrefix: shared,
    autoClaimPrefix: shared,
  };
}

/** A single-Redis, single-partition layout for a bare prefix (tests, tools). */
export const plainLayout = (prefix: string): QueueLayout => queueLayout({ prefix, cluster: false, partitions: 1 });

/** FNV-1a, 32 bits: stable across processes and versions, cheap enough for every event of an ingest call. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** One of `buckets` for a key, the same in every process and version. */
export const bucketOf = (key: string, buckets: number): number => (buckets <= 1 ? 0 : fnv1a(key) % buckets);

/**
 * The matching partition of a user. Events are routed by their sender's user
 * (the provider and the id it sends), re-evaluations by the internal user id:
 * a user's work of one kind always lands in the same queue, in order.
 */
export const partitionOf = (userKey: string, partitions: number): number => bucketOf(userKey, partitions);

/** The user key of an event: its sender and the sender's own id of the user. */
export const senderKey = (providerId: string, userId: string): string => `${providerId}:${userId}`;

/** An event's partition: its sender's user's (an event whose sender gave no user id goes by its own id). */
export const eventPartition = (
  event: { eventId: string; providerId: string; userId?: string | undefined },
  partitions: number,
): number => partitionOf(event.userId === undefined ? event.eventId : senderKey(event.providerId, event.userId), partitions);

/** Every partition number, 0 … partitions - 1. */
export const allPartitions = (partitions: number): number[] => Array.from({ length: partitions }, (_, p) => p);
