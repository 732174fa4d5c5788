import type { RedisClient } from './connection.js';
import type { LiveWorker } from './partition-assignment.js';
import type { QueueLayout } from './partitions.js';

/**
 * The matching partitions' leases and the registry of live workers, in Redis
 * (docs/scaling.md, "How partitions move"). A lease is one key per partition,
 * in the partition's hash slot, holding `<workerId>@<taken at>`; it is taken
 * only when absent (SET NX PX), renewed and released only by a script that
 * first compares the value with the holder's own. Every time is the Redis
 * server's (TIME), so no worker's clock decides who is live. The scripts are
 * ours, not a lock library's: docs/decisions.md, "Partition leases".
 */

/** What a worker says of itself in the registry. */
export interface WorkerInfo {
  host: string;
  pid: number;
  /** WORKER_SHARDS; null for a worker that takes its share by lease. */
  pins: number[] | null;
  /** Its /metrics port (WORKER_HEALTH_PORT), when known. */
  healthPort: number | null;
  startedAt: string;
}

export interface RegisteredWorker extends LiveWorker {
  /** Milliseconds since it last renewed its registration, by the Redis clock. */
  seenMsAgo: number;
  info: WorkerInfo | null;
}

/** A partition's lease as Redis holds it now. */
export interface LeaseState {
  partition: number;
  holder: string | null;
  /** How long the current holder has held it (ms), null when free. */
  heldMs: number | null;
  /** How long until it runs out unless renewed (ms), null when free. */
  expiresInMs: number | null;
}

const NOW_MS = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

const SCRIPTS = {
  // KEYS: lease. ARGV: worker id, lease ms. Answers {taken at, now}, or nil when another holds it.
  // A lease still ours (a renewal whose answer was lost) is kept, from when it was first taken.
  acquirePartitionLease: {
    numberOfKeys: 1,
    lua: `${NOW_MS}
      local current = redis.call('GET', KEYS[1])
      if current then
        local holder, since = string.match(current, '^(.*)@(%d+)$')
        if holder ~= ARGV[1] then return nil end
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return {tonumber(since), now}
      end
      redis.call('SET', KEYS[1], ARGV[1] .. '@' .. now, 'PX', ARGV[2])
      return {now, now}`,
  },
  // KEYS: lease. ARGV: token, lease ms. 1 renewed, 0 no longer ours.
  renewPartitionLease: {
    numberOfKeys: 1,
    lua: `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`,
  },
  // KEYS: lease. ARGV: token. The Redis time it was released at, 0 when it was no longer ours.
  releasePartitionLease: {
    numberOfKeys: 1,
    lua: `${NOW_MS} if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return now end return 0`,
  },
  // KEYS: lease. Answers {value or false, pttl, now}.
  readPartitionLease: {
    numberOfKeys: 1,
    lua: `${NOW_MS} return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1]), now}`,
  },
  // KEYS: workers, worker info. ARGV: liveness ms, then (to register) worker id and its info. Drops workers
  // not seen within the liveness window, then answers {now, id, seen at, info, id, …} of the live ones.
  partitionWorkers: {
    numberOfKeys: 2,
    lua: `${NOW_MS}
      if ARGV[2] then
        redis.call('ZADD', KEYS[1], now, ARGV[2])
        redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
      end
      local lapsed = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - tonumber(ARGV[1])))
      for _, id in ipairs(lapsed) do
        redis.call('ZREM', KEYS[1], id)
        redis.call('HDEL', KEYS[2], id)
      end
      local answer = {now}
      local live = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
      for i = 1, #live, 2 do
        table.insert(answer, live[i])
        table.insert(answer, live[i + 1])
        table.insert(answer, redis.call('HGET', KEYS[2], live[i]) or '')
      end
      return answer`,
  },
  // KEYS: workers, worker info. ARGV: worker id.
  leavePartitionWorkers: {
    numberOfKeys: 2,
    lua: `redis.call('ZREM', KEYS[1], ARGV[1]) redis.call('HDEL', KEYS[2], ARGV[1]) return 1`,
  },
} as const;

type ScriptName = keyof typeof SCRIPTS;
type ScriptedClient = RedisClient & Record<ScriptName, (...args: (string | number)[]) => Promise<unknown>>;

/** The client with the lease scripts defined (EVALSHA, loaded on first use by ioredis); idempotent. */
function scripted(redis: RedisClient): ScriptedClient {
  const client = redis as ScriptedClient;
  for (const [name, script] of Object.entries(SCRIPTS)) {
    if (typeof (client as unknown as Record<string, unknown>)[name] !== 'function')
      client.defineCommand(name, { numberOfKeys: script.numberOfKeys, lua: script.lua });
  }
  return client;
}

/** A lease taken: the token that renews and releases it, and the Redis time it was first taken at. */
export interface TakenLease {
  token: string;
  since: number;
  /** How long it has been held already (0 unless it was still this worker's). */
  heldMs: number;
}

/** The partition-lease operations over one Redis client (one Redis or a cluster). */
export function partitionLeaseStore(redis: RedisClient, layout: QueueLayout) {
  const client = scripted(redis);
  const { coordination } = layout;
  return {
    async acquire(partition: number, workerId: string, leaseMs: number): Promise<TakenLease | null> {
      const answer = (await client.acquirePartitionLease(layout.leaseKey(partition), workerId, leaseMs)) as
        | [number, number]
        | null;
      if (!answer) return null;
      const [since, now] = answer.map(Number) as [number, number];
      return { token: `${workerId}@${since}`, since, heldMs: now - since };
    },
    async renew(partition: number, token: string, leaseMs: number): Promise<boolean> {
      return Number(await client.renewPartitionLease(layout.leaseKey(partition), token, leaseMs)) === 1;
    },
    /** The Redis time it was released at, or null when it was no longer ours. */
    async release(partition: number, token: string): Promise<number | null> {
      const at = Number(await client.releasePartitionLease(layout.leaseKey(partition), token));
      return at > 0 ? at : null;
    },
    /** Every partition's lease, each read on the node owning its slot (with that node's clock). */
    async leases(): Promise<LeaseState[]> {
      return Promise.all(
        Array.from({ length: layout.partitions }, async (_, partition) => {
          const [value, pttl, now] = (await client.readPartitionLease(layout.leaseKey(partition))) as [
            string | null,
            number,
            number,
          ];
          const match = value ? /^(.*)@(\d+)$/.exec(value) : null;
          return match
            ? { partition, holder: match[1]!, heldMs: Number(now) - Number(match[2]), expiresInMs: Number(pttl) }
            : { partition, holder: null, heldMs: null, expiresInMs: null };
        }),
      );
    },
    /**
     * Registers `self` (when given) as seen now, drops workers unseen for `livenessMs`, and answers the
     * live workers, in one script.
     */
    async workers(livenessMs: number, self?: { id: string; info: WorkerInfo }): Promise<RegisteredWorker[]> {
      const args: (string | number)[] = [coordination.workers, coordination.workerInfo, livenessMs];
      if (self) args.push(self.id, JSON.stringify(self.info));
      const answer = (await client.partitionWorkers(...args)) as (string | number)[];
      const now = Number(answer[0]);
      const live: RegisteredWorker[] = [];
      for (let i = 1; i + 2 < answer.length; i += 3) {
        const info = parseInfo(String(answer[i + 2] ?? ''));
        live.push({
          id: String(answer[i]),
          pins: info?.pins ?? undefined,
          seenMsAgo: now - Number(answer[i + 1]),
          info,
        });
      }
      return live;
    },
    async leave(workerId: string): Promise<void> {
      await client.leavePartitionWorkers(coordination.workers, coordination.workerInfo, workerId);
    },
    /** Appends to the lease history (a capped stream): best effort, for operators and the lease history check. */
    async record(change: 'acquired' | 'released' | 'lost', partition: number, workerId: string, atMs: number): Promise<void> {
      await redis.xadd(
        coordination.history,
        'MAXLEN',
        '~',
        HISTORY_KEPT,
        '*',
        'change',
        change,
        'partition',
        partition,
        'worker',
        workerId,
        'at',
        atMs,
      );
    },
    /** The lease history, oldest first. */
    async history(): Promise<{ change: string; partition: number; worker: string; at: number }[]> {
      const entries = await redis.xrange(coordination.history, '-', '+');
      return entries.map(([, fields]) => {
        const record = Object.fromEntries(
          Array.from({ length: fields.length / 2 }, (_, i) => [fields[2 * i], fields[2 * i + 1]]),
        ) as Record<string, string>;
        return {
          change: record.change ?? '',
          partition: Number(record.partition),
          worker: record.worker ?? '',
          at: Number(record.at),
        };
      });
    },
  };
}

export type PartitionLeaseStore = ReturnType<typeof partitionLeaseStore>;

/** Entries the lease history keeps (about: trimmed with MAXLEN ~). */
const HISTORY_KEPT = 10_000;

function parseInfo(text: string): WorkerInfo | null {
  if (text === '') return null;
  try {
    return JSON.parse(text) as WorkerInfo;
  } catch {
    return null;
  }
}
