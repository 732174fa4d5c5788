import { LRUCache } from 'lru-cache';
import type { Executor } from '../../shared/db/client.js';
import { loadWalks, type StoredWalk } from '../../shared/db/progress-store.js';
import { type LockedMatchUser, loadMatchUsers } from '../../shared/db/user-store.js';
import type { ServiceUserId } from '../../shared/domain/ids.js';
import type { WalkState } from '../../shared/domain/walk.js';
import { walkKey } from '../../shared/domain/walk-key.js';
import type { BatchWrites } from './plan-batch.js';

/** A user's stored walks by walk key, as loadWalks reads them (never changed once made: batches share them). */
export type UserWalks = ReadonlyMap<string, StoredWalk>;

/**
 * A user's stored walks as they were at one walks version (users.walks_version),
 * and the keys of those whose open tasks' tallies count processed events only
 * (keepBatchWalks): a late event claimed now is new to them, so it may be
 * absorbed (docs/matching.md, "Late events absorbed"). The worker's own
 * knowledge: no row says it.
 */
interface KeptWalks {
  version: bigint;
  walks: UserWalks;
  processedOnly: ReadonlySet<string>;
}

/**
 * The walks a worker keeps between batches (docs/matching.md, "Walks kept
 * between batches"). The hottest users are in almost every batch, and
 * loading every stored walk of every user of a batch would be a large share
 * of the worker's time and most of the rows Postgres reads for it. An entry is used
 * only when the version it was kept at is the user's walks_version read
 * under the user's lock in the batch's transaction; the triggers of 0015 move
 * that version on every write of the user's walks, by any writer, so a walk
 * written by another worker (or anything else) is loaded again, never reused.
 * Bounded by walks held (least recently used users go first).
 */
export class WalkCache {
  private readonly users: LRUCache<ServiceUserId, KeptWalks>;

  constructor(maxWalks: number) {
    this.users = new LRUCache<ServiceUserId, KeptWalks>({ maxSize: maxWalks, sizeCalculation: (kept) => 1 + kept.walks.size });
  }

  /** The entries held for these users, whatever their version. */
  held(userIds: readonly ServiceUserId[]): Map<ServiceUserId, KeptWalks> {
    const held = new Map<ServiceUserId, KeptWalks>();
    for (const userId of userIds) {
      const kept = this.users.get(userId);
      if (kept !== undefined) held.set(userId, kept);
    }
    return held;
  }

  keep(userId: ServiceUserId, version: bigint, walks: UserWalks, processedOnly: ReadonlySet<string>): void {
    this.users.set(userId, { version, walks, processedOnly });
  }
}

const NONE: ReadonlySet<string> = new Set();

/** The batch's users (read under their locks) and each one's stored walks. */
export interface BatchWalks {
  users: LockedMatchUser[];
  walksByUser: Map<ServiceUserId, UserWalks>;
  /** Of the users whose walks came from the cache, the keys of those kept processed-only (KeptWalks). */
  processedOnly: Map<ServiceUserId, ReadonlySet<string>>;
  /** Users whose walks came from the cache, and users whose walks were read from Postgres. */
  reused: number;
  loaded: number;
}

/**
 * Reads the batch's users and their walks: the walks of users the cache
 * holds at their current version are reused, the others are loaded in the
 * same round trip as the users. An entry found out of date (another writer
 * came between) is loaded after, in one more statement. The users'
 * versions are read before their walks, so walks loaded are never older
 * than the version they are kept at; a user whose walks were loaded uses
 * them, whatever the cache holds by then.
 */
export async function loadBatchWalks(
  tx: Executor,
  userIds: readonly ServiceUserId[],
  evaluateIds: readonly ServiceUserId[],
  cache: WalkCache | undefined,
): Promise<BatchWalks> {
  const heldAtSend = cache?.held(userIds) ?? new Map<ServiceUserId, KeptWalks>();
  const [users, loaded] = await Promise.all([
    loadMatchUsers(tx, userIds, evaluateIds),
    loadWalks(
      tx,
      userIds.filter((id) => !heldAtSend.has(id)),
    ),
  ]);
  // Looked up again now: the batch ahead of this one (whose commit let this one take the locks) keeps what it
  // wrote only once its commit has answered, which is often after this batch's locks were granted.
  const held = cache?.held(userIds.filter((id) => heldAtSend.has(id))) ?? heldAtSend;
  const current = (user: LockedMatchUser) => held.get(user.id)?.version === user.walksVersion;
  const outdated = users.filter((user) => heldAtSend.has(user.id) && !current(user)).map((user) => user.id);
  const reloaded = outdated.length > 0 ? await loadWalks(tx, outdated) : [];
  // Kept walks come with their keys: a hot user's dozens of walks are not keyed again every batch.
  const walksByUser = new Map<ServiceUserId, UserWalks>();
  const processedOnly = new Map<ServiceUserId, ReadonlySet<string>>();
  const fresh = new Map<ServiceUserId, Map<string, StoredWalk>>();
  for (const user of users) {
    if (heldAtSend.has(user.id) && current(user)) {
      const kept = held.get(user.id)!;
      walksByUser.set(user.id, kept.walks);
      processedOnly.set(user.id, kept.processedOnly);
    } else {
      const walks = new Map<string, StoredWalk>();
      fresh.set(user.id, walks);
      walksByUser.set(user.id, walks);
    }
  }
  // A walk of a user id without a users row cannot exist (foreign key); `?.` only skips what was not asked for.
  for (const walks of [loaded, reloaded])
    for (const walk of walks) fresh.get(walk.userId)?.set(walkKey(walk.userId, walk.chainId, walk.runStartUs), walk);
  return { users, walksByUser, processedOnly, reused: users.length - fresh.size, loaded: fresh.size };
}

/**
 * After the batch commits: every user's walks as loadWalks would now read
 * them, kept at the version they now have (`writerVersion` for a user whose
 * walks the batch wrote, the version read otherwise). A walk written is its
 * progress row with its state's completions (diffWalks writes a progress row
 * for every walk whose completions it writes or deletes), with its tallies
 * as written, which is the tally read back (tally-column.ts reads a tally into
 * the walk's own shape, and the matcher compares tallies field by field).
 * A walk written is kept processed-only (KeptWalks) when its open tasks
 * counted no event still pending: it was new, or walked again here over the
 * history (`recomputed`, which reads processed events and the batch's own),
 * or it was kept so and advanced over the batch's events. A walk read from
 * Postgres is not (an older build's history reads included pending events);
 * a walk not written keeps what it had.
 */
export function keepBatchWalks(
  cache: WalkCache,
  batch: BatchWalks,
  writes: Pick<BatchWrites, 'progress'>,
  states: ReadonlyMap<string, WalkState>,
  recomputed: ReadonlySet<string>,
  writerVersion: bigint,
): void {
  const written = new Map<ServiceUserId, Map<string, StoredWalk>>();
  const writtenProcessedOnly = new Set<string>();
  for (const row of writes.progress) {
    const key = walkKey(row.userId, row.chainId, row.runStartUs);
    const isNew = batch.walksByUser.get(row.userId)?.has(key) !== true;
    if (isNew || batch.processedOnly.get(row.userId)?.has(key) || recomputed.has(key)) writtenProcessedOnly.add(key);
    const completions = new Map(
      [...states.get(key)!.completions.values()].map((c) => [
        c.taskId,
        { eventId: c.eventId, completedUs: c.completedUs, held: c.held === true },
      ]),
    );
    const walk: StoredWalk = {
      userId: row.userId,
      chainId: row.chainId,
      runStartUs: row.runStartUs,
      mark: row.mark,
      completions,
      generation: row.generation,
      tallies: row.tallies,
    };
    const walks = written.get(row.userId) ?? new Map<string, StoredWalk>();
    written.set(row.userId, walks.set(key, walk));
  }
  for (const user of batch.users) {
    const rewritten = written.get(user.id);
    // Every user of the batch has an entry (loadBatchWalks sets one, empty when it has no walk).
    const before = batch.walksByUser.get(user.id)!;
    const processedOnlyBefore = batch.processedOnly.get(user.id) ?? NONE;
    if (rewritten === undefined) cache.keep(user.id, user.walksVersion, before, processedOnlyBefore);
    // New map and set: the ones before may be another batch's (kept ones are never changed).
    else {
      const after = new Map(before);
      const processedOnly = new Set(processedOnlyBefore);
      for (const [key, walk] of rewritten) {
        after.set(key, walk);
        if (writtenProcessedOnly.has(key)) processedOnly.add(key);
        else processedOnly.delete(key);
      }
      cache.keep(user.id, writerVersion, after, processedOnly);
    }
  }
}
