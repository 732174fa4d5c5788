import type { RankedStanding, Standing } from '../domain/leaderboards.js';
import { parseStandingMember, standingMember } from '../domain/leaderboards.js';
import type { RedisClient } from '../queue/connection.js';

// The standings of a leaderboard's period in Redis (docs/leaderboards.md,
// "Standings in Redis"): a sorted set whose score is the user's score negated
// and whose member is standingMember (the time the score was reached, then the
// platform user id), so an ascending range is §19's order; a hash from the
// platform user id to its member; a `ready` mark once the set was built from
// Postgres. Every key of a board carries the hash tag {lb:<id>}: on a Redis
// Cluster they share one slot, so each script below is one atomic step.

/** A period of one board: what its keys are named after. */
export interface PeriodKey {
  boardId: string;
  periodStartUs: bigint;
}

/** A user's new standing, or null when they no longer have a score. */
export interface StandingUpdate {
  platformUserId: string;
  standing: Standing | null;
}

export interface StandingsRead {
  /** Users ranked in the period. */
  total: number;
  entries: RankedStanding[];
  /** The user read around (`around=`), when ranked. */
  user: RankedStanding | null;
}

// KEYS: rank, member, ready. ARGV: limit, platform user id ('' for none).
// Answers {0} before the set is built, else {1, total, first rank (0-based), the user's rank or -1, entries}.
const READ = `
if redis.call('EXISTS', KEYS[3]) == 0 then return {0} end
local limit = tonumber(ARGV[1])
local total = redis.call('ZCARD', KEYS[1])
local first = 0
local userRank = -1
if ARGV[2] ~= '' then
  local member = redis.call('HGET', KEYS[2], ARGV[2])
  if member and member ~= '' then
    local rank = redis.call('ZRANK', KEYS[1], member)
    if rank then
      userRank = rank
      first = math.max(0, rank - math.floor((limit - 1) / 2))
      local last = math.min(total - 1, first + limit - 1)
      first = math.max(0, last - limit + 1)
    end
  end
end
return {1, total, first, userRank, redis.call('ZRANGE', KEYS[1], first, first + limit - 1, 'WITHSCORES')}
`;

// KEYS: rank, member, ready, building, rank:tmp, member:tmp. ARGV: expire-at (ms, 0: none), then per user: id, member ('' for none), score.
// Writes the live set once it is built, and the set being rebuilt while a rebuild runs; there a user without a score
// keeps an empty member, so the rebuild's older read of them is not written over it.
const APPLY = `
local live = redis.call('EXISTS', KEYS[3]) == 1
local building = redis.call('EXISTS', KEYS[4]) == 1
local function put(rank, members, id, member, score, tombstone)
  local old = redis.call('HGET', members, id)
  if old and old ~= '' then redis.call('ZREM', rank, old) end
  if member ~= '' then
    redis.call('HSET', members, id, member)
    redis.call('ZADD', rank, score, member)
  elseif tombstone then
    redis.call('HSET', members, id, '')
  else
    redis.call('HDEL', members, id)
  end
end
for i = 2, #ARGV, 3 do
  if live then put(KEYS[1], KEYS[2], ARGV[i], ARGV[i + 1], ARGV[i + 2], false) end
  if building then put(KEYS[5], KEYS[6], ARGV[i], ARGV[i + 1], ARGV[i + 2], true) end
end
if live and ARGV[1] ~= '0' then
  for k = 1, 3 do redis.call('PEXPIREAT', KEYS[k], ARGV[1]) end
end
return live and 1 or 0
`;

// KEYS: building, rank:tmp, member:tmp. ARGV: token, ttl (ms). Takes the rebuild and starts it empty; 0 when another holds it.
const BEGIN_REBUILD = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
redis.call('UNLINK', KEYS[2], KEYS[3])
return 1
`;

// KEYS: building, rank:tmp, member:tmp. ARGV: token, ttl (ms), then per user: id, member, score.
// A user a refresh wrote during the rebuild keeps that newer standing (HSETNX).
const REBUILD_CHUNK = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
for i = 3, #ARGV, 3 do
  if redis.call('HSETNX', KEYS[3], ARGV[i], ARGV[i + 1]) == 1 then redis.call('ZADD', KEYS[2], ARGV[i + 2], ARGV[i + 1]) end
end
return 1
`;

// KEYS: building, rank:tmp, member:tmp, rank, member, ready. ARGV: token, expire-at (ms, 0: none).
// The rebuilt set replaces the live one at once; the old one is freed in the background (UNLINK), so a large board's
// swap does not stall Redis.
const FINISH_REBUILD = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('UNLINK', KEYS[4], KEYS[5])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('RENAME', KEYS[2], KEYS[4]) end
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('RENAME', KEYS[3], KEYS[5]) end
redis.call('SET', KEYS[6], '1')
if ARGV[2] ~= '0' then
  for k = 4, 6 do if redis.call('EXISTS', KEYS[k]) == 1 then redis.call('PEXPIREAT', KEYS[k], ARGV[2]) end end
end
redis.call('DEL', KEYS[1])
return 1
`;

const SCRIPTS = {
  lbRead: { numberOfKeys: 3, lua: READ },
  lbApply: { numberOfKeys: 6, lua: APPLY },
  lbBeginRebuild: { numberOfKeys: 3, lua: BEGIN_REBUILD },
  lbRebuildChunk: { numberOfKeys: 3, lua: REBUILD_CHUNK },
  lbFinishRebuild: { numberOfKeys: 6, lua: FINISH_REBUILD },
} as const;

type ScriptName = keyof typeof SCRIPTS;
type Scripted = Record<ScriptName, (...args: (string | number)[]) => Promise<unknown>>;

const defined = new WeakSet<RedisClient>();

/** The client with the scripts defined once (ioredis sends EVALSHA, and the script itself when Redis lost it). */
function scripted(redis: RedisClient): Scripted {
  if (!defined.has(redis)) {
    for (const [name, script] of Object.entries(SCRIPTS)) redis.defineCommand(name, script);
    defined.add(redis);
  }
  return redis as unknown as Scripted;
}

/** QUEUE_PREFIX without hash-tag braces: the board's own tag must be the key's first. */
const untagged = (prefix: string) => prefix.replace(/[{}]/g, '') || 'qcr';

/** A standing as the sorted set holds it: the member, and the score negated (an ascending range is §19's order). */
const encoded = (update: StandingUpdate): string[] =>
  update.standing === null || update.standing.score <= 0
    ? [update.platformUserId, '', '0']
    : [update.platformUserId, standingMember(update.standing.reachedUs, update.platformUserId), String(-update.standing.score)];

export class StandingsCache {
  readonly #redis: RedisClient;
  readonly #prefix: string;

  constructor(redis: RedisClient, prefix: string) {
    this.#redis = redis;
    this.#prefix = untagged(prefix);
  }

  /** The keys of one period, every one in the board's slot. */
  keys({ boardId, periodStartUs }: PeriodKey) {
    const base = `${this.#prefix}:{lb:${boardId}}:${periodStartUs}`;
    return {
      rank: `${base}:rank`,
      member: `${base}:member`,
      ready: `${base}:ready`,
      building: `${base}:building`,
      rankTmp: `${base}:rank:tmp`,
      memberTmp: `${base}:member:tmp`,
    };
  }

  /** The top `limit`, or `limit` around a user; null while the set is not built (then rebuild it from Postgres). */
  async read(period: PeriodKey, request: { limit: number; around?: string | undefined }): Promise<StandingsRead | null> {
    const k = this.keys(period);
    const answer = (await scripted(this.#redis).lbRead(k.rank, k.member, k.ready, request.limit, request.around ?? '')) as
      | [0]
      | [1, number, number, number, string[]];
    if (answer[0] === 0) return null;
    const [, total, first, userRank, flat] = answer;
    const entries: RankedStanding[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const { reachedUs, platformUserId } = parseStandingMember(flat[i]!);
      entries.push({ rank: first + i / 2 + 1, platformUserId, score: -Number(flat[i + 1]), reachedUs });
    }
    const user = userRank < 0 ? null : (entries.find((e) => e.rank === userRank + 1) ?? null);
    return { total, entries, user };
  }

  /** Writes users' new standings into the built set (and the one being rebuilt); false when the set is not built. */
  async apply(period: PeriodKey, updates: readonly StandingUpdate[], expireAtMs = 0): Promise<boolean> {
    if (updates.length === 0) return true;
    const k = this.keys(period);
    const args = updates.flatMap(encoded);
    return (
      (await scripted(this.#redis).lbApply(
        k.rank,
        k.member,
        k.ready,
        k.building,
        k.rankTmp,
        k.memberTmp,
        String(expireAtMs),
        ...args,
      )) === 1
    );
  }

  /** Takes the rebuild of a period (for `ttlMs`, renewed by each chunk); false when another process is rebuilding it. */
  async beginRebuild(period: PeriodKey, token: string, ttlMs: number): Promise<boolean> {
    const k = this.keys(period);
    return (await scripted(this.#redis).lbBeginRebuild(k.building, k.rankTmp, k.memberTmp, token, ttlMs)) === 1;
  }

  /** Adds a chunk of the rebuild's standings; false when the rebuild is no longer this one's. */
  async rebuildChunk(period: PeriodKey, token: string, ttlMs: number, standings: readonly Standing[]): Promise<boolean> {
    const k = this.keys(period);
    const args = standings.flatMap((standing) => encoded({ platformUserId: standing.platformUserId, standing }));
    return (await scripted(this.#redis).lbRebuildChunk(k.building, k.rankTmp, k.memberTmp, token, ttlMs, ...args)) === 1;
  }

  /** Swaps the rebuilt set in; false when the rebuild is no longer this one's. */
  async finishRebuild(period: PeriodKey, token: string, expireAtMs = 0): Promise<boolean> {
    const k = this.keys(period);
    return (
      (await scripted(this.#redis).lbFinishRebuild(
        k.building,
        k.rankTmp,
        k.memberTmp,
        k.rank,
        k.member,
        k.ready,
        token,
        String(expireAtMs),
      )) === 1
    );
  }

  /** Whether the period's set was built (and not lost since). */
  async built(period: PeriodKey): Promise<boolean> {
    return (await this.#redis.exists(this.keys(period).ready)) === 1;
  }

  /** Whether someone is rebuilding the period now. */
  async rebuilding(period: PeriodKey): Promise<boolean> {
    return (await this.#redis.exists(this.keys(period).building)) === 1;
  }

  /** Drops a period's standings: the next read rebuilds them from Postgres. */
  async forget(period: PeriodKey): Promise<void> {
    const k = this.keys(period);
    // One slot: one command on a cluster too.
    await this.#redis.unlink(k.ready, k.rank, k.member);
  }
}
