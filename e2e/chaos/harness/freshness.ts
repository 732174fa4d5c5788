import { inArray } from 'drizzle-orm';
import type { Database } from '../../../shared/db/client.js';
import { users } from '../../../shared/db/schema/index.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import type { ApiClient } from '../../../shared/testing/api-client.js';
import type { SeededRandom } from '../../../shared/testing/random.js';
import { openLoop } from '../../support/world/open-loop.js';
import type { Tenant } from './world.js';

/** A read may show an older state than Postgres holds for this long after the change (and after its fault cleared). */
export const STALE_AFTER_MS = 2000;
const WATCH_INTERVAL_MS = 200;
const MAX_OUTSTANDING_READS = 256;

/** The faults of a run, each from its start until it cleared (the process restarted, the server back). */
export class FaultLog {
  readonly faults: { name: string; startAt: number; clearedAt: number | null }[] = [];

  begin(name: string): { startAt: number; clear(): number } {
    const fault = { name, startAt: Date.now(), clearedAt: null as number | null };
    this.faults.push(fault);
    return {
      startAt: fault.startAt,
      clear: () => {
        fault.clearedAt = Date.now();
        return fault.clearedAt;
      },
    };
  }

  /** When a change first seen at `at` must show in reads: at once, or when the fault under way then cleared. */
  settledAt(at: number): number {
    let settled = at;
    for (const fault of this.faults)
      if (fault.startAt <= at && (fault.clearedAt === null || fault.clearedAt >= at))
        settled = Math.max(settled, fault.clearedAt ?? Number.POSITIVE_INFINITY);
    return settled;
  }
}

export interface FollowedUser {
  tenant: Tenant;
  platformUserId: string;
}

interface Change {
  stampMs: number;
  /** End of the first watcher query that saw it: the change was committed before. */
  seenAt: number;
}

interface Read {
  user: string;
  startedAt: number;
  /** The answer's liveUpdates.baselineTimestamp (the user's progress stamp it was read at); null: none yet. */
  shownMs: number | null;
}

export interface Freshness {
  /** Reads of GET active answered 200 or 304 (the ones judged). */
  judged: number;
  /** Reads that showed an older state than Postgres held more than STALE_AFTER_MS after the change and its fault cleared. */
  stale: number;
  /** Among reads that missed a change, the longest time since it settled (negative: every miss was younger than its settling). */
  worstLagMs: number | null;
  /** Reads answered otherwise, by status (0: no answer), while faults were under way. */
  unanswered: Map<number, number>;
  examples: string[];
}

/**
 * Pollers of GET active for `followed` users, judged against Postgres: a
 * watcher polls the users' progress stamps (what a read shows as
 * liveUpdates.baselineTimestamp) and records when each new stamp is first
 * seen; a read that shows an older stamp than one seen more than 2 s before
 * the read started (and 2 s after the fault under way at the change cleared)
 * is stale. Pollers revalidate with the tag they hold, as clients do: a 304
 * shows the state of the answer they hold.
 */
export function watchFreshness(options: {
  db: () => Database;
  /** The client that reads from the API at a base URL. */
  clientOf: (api: string) => ApiClient;
  /** Base URLs of every API; reads go round-robin over them (a balancer without health checks). */
  apis: () => string[];
  followed: FollowedUser[];
  readsPerSecond: number;
  faults: FaultLog;
  random: SeededRandom;
}) {
  const { clientOf, followed, faults, random } = options;
  const ids = followed.map((user) => senderUserId(user.platformUserId));
  const changes = new Map<string, Change[]>();
  const reads: Read[] = [];
  const held = new Map<string, { etag: string; shownMs: number | null }>();
  const unanswered = new Map<number, number>();
  let turn = 0;

  const watching = new AbortController();
  const watcher = (async () => {
    while (!watching.signal.aborted) {
      const rows = await options
        .db()
        .select({ platformUserId: users.platformUserId, changedUs: users.progressChangedAt })
        .from(users)
        .where(inArray(users.platformUserId, ids))
        .catch(() => null);
      const seenAt = Date.now();
      for (const row of rows ?? []) {
        if (row.changedUs === null) continue;
        const stampMs = Number(row.changedUs / 1000n);
        const list = changes.get(row.platformUserId) ?? [];
        if (list.length === 0 || list.at(-1)!.stampMs < stampMs) list.push({ stampMs, seenAt });
        changes.set(row.platformUserId, list);
      }
      await new Promise((resolve) => setTimeout(resolve, WATCH_INTERVAL_MS));
    }
  })();

  async function read(user: FollowedUser, api: string): Promise<void> {
    const known = held.get(user.platformUserId);
    const startedAt = Date.now();
    const answer = await clientOf(api).call('GET', `/v1/quest-chains/active/${encodeURIComponent(user.platformUserId)}`, {
      headers: { ...user.tenant.headers, ...(known ? { 'if-none-match': known.etag } : {}) },
    });
    if (answer.status === 304 && known) {
      reads.push({ user: user.platformUserId, startedAt, shownMs: known.shownMs });
    } else if (answer.status === 200) {
      const baseline: string | null = answer.json.data.liveUpdates.baselineTimestamp;
      const shownMs = baseline === null ? null : Date.parse(baseline);
      held.set(user.platformUserId, { etag: String(answer.headers.get('etag')), shownMs });
      reads.push({ user: user.platformUserId, startedAt, shownMs });
    } else unanswered.set(answer.status, (unanswered.get(answer.status) ?? 0) + 1);
  }

  const nextApi = () => {
    const apis = options.apis();
    return apis[turn++ % apis.length]!;
  };
  const polling = new AbortController();
  const pollers = openLoop({
    ratePerS: options.readsPerSecond,
    durationS: Number.POSITIVE_INFINITY,
    maxOutstanding: MAX_OUTSTANDING_READS,
    signal: polling.signal,
    start: () => ({ units: 1, done: read(random.pick(followed), nextApi()) }),
  });

  /** The first change of `user` that a read showing `shownMs` does not show. */
  function firstMissed(user: string, shownMs: number | null): Change | undefined {
    const list = changes.get(user) ?? [];
    if (shownMs === null) return list[0];
    let low = 0;
    let high = list.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (list[middle]!.stampMs <= shownMs) low = middle + 1;
      else high = middle;
    }
    return list[low];
  }

  return {
    /** Stops the pollers (the calls in flight answered). */
    async stopReading(): Promise<void> {
      polling.abort();
      await pollers;
    },
    /** Every followed user read once on every API (after the run has drained: each must show Postgres' state). */
    async sweep(concurrency = 16): Promise<void> {
      const work = options.apis().flatMap((api) => followed.map((user) => ({ api, user })));
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < work.length) {
            const { api, user } = work[next++]!;
            await read(user, api);
          }
        }),
      );
    },
    async stop(): Promise<void> {
      polling.abort();
      watching.abort();
      await Promise.all([pollers, watcher]);
    },
    judge(): Freshness {
      let stale = 0;
      let worstLagMs: number | null = null;
      const examples: string[] = [];
      for (const { user, startedAt, shownMs } of reads) {
        const missed = firstMissed(user, shownMs);
        if (!missed) continue;
        const lag = startedAt - faults.settledAt(missed.seenAt);
        worstLagMs = Math.max(worstLagMs ?? lag, lag);
        if (lag <= STALE_AFTER_MS) continue;
        stale += 1;
        if (examples.length < 5)
          examples.push(
            `${user} read at ${new Date(startedAt).toISOString()} showed ${shownMs === null ? 'no change' : new Date(shownMs).toISOString()}, Postgres had ${new Date(missed.stampMs).toISOString()} since ${new Date(missed.seenAt).toISOString()}`,
          );
      }
      return { judged: reads.length, stale, worstLagMs, unanswered, examples };
    },
  };
}
