import { once } from 'node:events';
import calculateSlot from 'cluster-key-slot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Standing } from '../domain/leaderboards.js';
import { createRedis } from '../queue/connection.js';
import { uniqueSuffix } from '../testing/database.js';
import { StandingsCache } from './standings-cache.js';

// The sorted sets of a period (docs/leaderboards.md, "Standings in Redis"):
// reads in §19's order, writes in step, and a rebuild that loses no write made
// while it ran. On the shared Redis, under a prefix of this file's own.

const redis = createRedis('redis://127.0.0.1:6379', 'producer');
const prefix = `test-lbcache-${uniqueSuffix()}`;
const cache = new StandingsCache(redis, prefix);
let boards = 0;
const period = () => ({ boardId: `00000000-0000-4000-8000-${String((boards += 1)).padStart(12, '0')}`, periodStartUs: 1n });

beforeAll(async () => {
  // A producer connection takes no command before it is ready.
  if (redis.status !== 'ready') await once(redis, 'ready');
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const s = (platformUserId: string, score: number, reachedUs: bigint): Standing => ({ platformUserId, score, reachedUs });
const ids = (read: { entries: { platformUserId: string }[] } | null) => read?.entries.map((e) => e.platformUserId);

async function built(key: ReturnType<typeof period>, standings: Standing[]) {
  expect(await cache.beginRebuild(key, 'token', 10_000)).toBe(true);
  expect(await cache.rebuildChunk(key, 'token', 10_000, standings)).toBe(true);
  expect(await cache.finishRebuild(key, 'token')).toBe(true);
}

describe('StandingsCache', () => {
  it('keeps every key of a board in one hash slot, the prefix braces dropped', () => {
    const tagged = new StandingsCache(redis, '{qcr}');
    const keys = Object.values(tagged.keys({ boardId: 'b1', periodStartUs: 5n }));
    expect(new Set(keys.map((key) => calculateSlot(key))).size).toBe(1);
    expect(calculateSlot(keys[0]!)).toBe(calculateSlot('{lb:b1}'));
  });

  it('answers nothing before it is built, then ranks by score, reached, id bytes', async () => {
    const key = period();
    expect(await cache.read(key, { limit: 10 })).toBeNull();
    expect(await cache.apply(key, [{ platformUserId: 'x', standing: s('x', 1, 1n) }])).toBe(false);
    await built(key, [s('b', 5, 20n), s('a', 5, 20n), s('c', 7, 99n), s('d', 5, 10n), s('é', 5, 10n), s('Z', 5, 10n)]);
    const read = await cache.read(key, { limit: 10 });
    expect(read?.entries.map((e) => [e.rank, e.platformUserId, e.score])).toEqual([
      [1, 'c', 7],
      [2, 'Z', 5],
      [3, 'd', 5],
      [4, 'é', 5],
      [5, 'a', 5],
      [6, 'b', 5],
    ]);
    const around = await cache.read(key, { limit: 3, around: 'a' });
    expect(ids(around)).toEqual(['é', 'a', 'b']);
    expect(around?.user).toMatchObject({ rank: 5, score: 5, platformUserId: 'a' });
    expect((await cache.read(key, { limit: 3, around: 'nobody' }))?.user).toBeNull();
  });

  it('moves a user on a new score and drops one whose score is gone', async () => {
    const key = period();
    await built(key, [s('a', 3, 1n), s('b', 2, 1n)]);
    await cache.apply(key, [
      { platformUserId: 'b', standing: s('b', 4, 2n) },
      { platformUserId: 'a', standing: null },
      { platformUserId: 'c', standing: s('c', 1, 3n) },
    ]);
    expect(ids(await cache.read(key, { limit: 10 }))).toEqual(['b', 'c']);
    expect((await cache.read(key, { limit: 10, around: 'a' }))?.user).toBeNull();
  });

  it('a write made during a rebuild survives it, whatever the rebuild read before', async () => {
    const key = period();
    await built(key, [s('a', 1, 1n), s('b', 1, 2n)]);
    expect(await cache.beginRebuild(key, 'second', 10_000)).toBe(true);
    expect(await cache.beginRebuild(key, 'third', 10_000)).toBe(false);
    // During the rebuild: b rises, a loses its score (the live set shows both at once).
    await cache.apply(key, [
      { platformUserId: 'b', standing: s('b', 9, 5n) },
      { platformUserId: 'a', standing: null },
    ]);
    expect(ids(await cache.read(key, { limit: 10 }))).toEqual(['b']);
    // The rebuild's snapshot was older: a with 1, b with 1. Neither may come back over the newer writes.
    expect(await cache.rebuildChunk(key, 'second', 10_000, [s('a', 1, 1n), s('b', 1, 2n), s('c', 2, 3n)])).toBe(true);
    expect(await cache.finishRebuild(key, 'second')).toBe(true);
    const read = await cache.read(key, { limit: 10 });
    expect(read?.entries.map((e) => [e.platformUserId, e.score])).toEqual([
      ['b', 9],
      ['c', 2],
    ]);
    expect((await cache.read(key, { limit: 10, around: 'a' }))?.user).toBeNull();
  });

  it('a rebuild whose mark another took over stops without swapping', async () => {
    const key = period();
    expect(await cache.beginRebuild(key, 'old', 1)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await cache.beginRebuild(key, 'new', 10_000)).toBe(true);
    expect(await cache.rebuildChunk(key, 'old', 10_000, [s('a', 1, 1n)])).toBe(false);
    expect(await cache.finishRebuild(key, 'old')).toBe(false);
    expect(await cache.finishRebuild(key, 'new')).toBe(true);
    expect(ids(await cache.read(key, { limit: 10 }))).toEqual([]);
  });

  it('forgets a period: the next read asks for a rebuild', async () => {
    const key = period();
    await built(key, [s('a', 1, 1n)]);
    await cache.forget(key);
    expect(await cache.read(key, { limit: 10 })).toBeNull();
  });
});
