import { bucketOf } from './partitions.js';

/** A live matching worker as every worker sees it in the registry. */
export interface LiveWorker {
  id: string;
  /** WORKER_SHARDS: the partitions it consumes without leases; absent for a worker that takes its share by lease. */
  pins?: readonly number[] | undefined;
}

/**
 * Which matching partitions each leasing worker should hold, from the live
 * workers alone, so that every worker computes the same answer and they
 * converge without a coordinator. Partitions pinned by a live pinned worker
 * are left out; the rest are divided so that each leasing worker gets the
 * floor or the ceiling of its fair share. Within those counts a partition
 * goes to the worker that ranks it highest (rendezvous hashing: greedy over
 * every (partition, worker) pair by score), so a worker joining or leaving
 * moves few partitions besides its own share.
 */
export function assignPartitions(partitions: number, workers: readonly LiveWorker[]): Map<string, number[]> {
  const pinned = new Set(workers.flatMap((worker) => worker.pins ?? []));
  const free = Array.from({ length: partitions }, (_, p) => p).filter((p) => !pinned.has(p));
  const leasing = [...new Set(workers.filter((worker) => worker.pins === undefined).map((worker) => worker.id))].sort();
  const assigned = new Map<string, number[]>(leasing.map((id) => [id, []]));
  if (leasing.length === 0) return assigned;
  const floor = Math.floor(free.length / leasing.length);
  // Workers that may take one more than the floor, first come (by score) first served.
  let ceilings = free.length % leasing.length;
  const pairs = free.flatMap((partition) =>
    leasing.map((id) => ({ partition, id, score: mix(bucketOf(`${partition}:${id}`, 2 ** 32)) })),
  );
  pairs.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : a.partition - b.partition));
  const taken = new Set<number>();
  for (const { partition, id } of pairs) {
    if (taken.has(partition)) continue;
    const mine = assigned.get(id)!;
    if (mine.length < floor) mine.push(partition);
    else if (mine.length === floor && ceilings > 0) {
      mine.push(partition);
      ceilings -= 1;
    } else continue;
    taken.add(partition);
  }
  for (const mine of assigned.values()) mine.sort((a, b) => a - b);
  return assigned;
}

/** MurmurHash3's finalizer: FNV-1a of keys that differ in one character is not spread enough to rank by. */
function mix(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
