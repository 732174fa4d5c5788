import { appendTo } from '../../shared/collections.js';
import type { Executor } from '../../shared/db/client.js';
import { loadReadUserStates, type ReadUserState } from '../../shared/db/progress-store.js';
import type { SenderUserId } from '../../shared/domain/ids.js';

/**
 * Reads of GET active that arrive together share one statement. Under load an
 * API process parses many requests in one turn of its event loop; each used to
 * send its own statement, and on these machines a statement's round trip (the
 * write that wakes Postgres, the read of its answer) was the largest single
 * cost of a read that misses the answer cache (docs/performance.md). Reads of
 * one platform asked about the same chains wait for the end of the turn
 * (setImmediate: after the poll phase that parsed them) and go as one
 * statement; alone, a read goes alone, one turn later.
 */

/** Most users one statement reads: a statement's rows stay small and a long batch does not hold its first read back. */
export const MOST_USERS_A_STATEMENT = 64;

interface Waiter {
  resolve: (state: ReadUserState | null) => void;
  reject: (error: unknown) => void;
}

interface Batch {
  platformId: string;
  chainIds: readonly string[];
  fullChainIds: readonly string[];
  tallyChainIds: readonly string[];
  waiters: Map<SenderUserId, Waiter[]>;
}

// Open batches per database client, by platform and the chains asked about.
const openBatches = new WeakMap<Executor, Map<string, Batch>>();

/** loadReadUserState, sharing its statement with the other reads of this turn that ask the same. */
export function loadReadUserStateTogether(
  db: Executor,
  platformId: string,
  platformUserId: SenderUserId,
  chainIds: readonly string[],
  fullChainIds: readonly string[],
  tallyChainIds: readonly string[],
): Promise<ReadUserState | null> {
  let open = openBatches.get(db);
  if (open === undefined) {
    open = new Map();
    openBatches.set(db, open);
  }
  const key = `${platformId}|${chainIds.join(',')}|${fullChainIds.join(',')}|${tallyChainIds.join(',')}`;
  let batch = open.get(key);
  if (batch === undefined) {
    batch = { platformId, chainIds, fullChainIds, tallyChainIds, waiters: new Map() };
    open.set(key, batch);
    const opened = batch;
    setImmediate(() => send(db, open, key, opened));
  }
  const promise = new Promise<ReadUserState | null>((resolve, reject) =>
    appendTo(batch.waiters, platformUserId, { resolve, reject }),
  );
  if (batch.waiters.size >= MOST_USERS_A_STATEMENT) send(db, open, key, batch);
  return promise;
}

function send(db: Executor, open: Map<string, Batch>, key: string, batch: Batch): void {
  // Sent once: when full, or at the end of the turn, whichever comes first.
  if (open.get(key) !== batch) return;
  open.delete(key);
  const { platformId, chainIds, fullChainIds, tallyChainIds, waiters } = batch;
  loadReadUserStates(db, platformId, [...waiters.keys()], chainIds, fullChainIds, tallyChainIds).then(
    (states) => {
      for (const [platformUserId, list] of waiters) for (const waiter of list) waiter.resolve(states.get(platformUserId) ?? null);
    },
    (error: unknown) => {
      for (const list of waiters.values()) for (const waiter of list) waiter.reject(error);
    },
  );
}
