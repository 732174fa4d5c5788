import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config.js';
import { logThrottle } from '../observability/log-throttle.js';
import { queueLayout, senderKey, shardOf } from './shards.js';

describe('queue layout', () => {
  it('keeps the unsharded queue of earlier versions on one Redis with one shard', () => {
    const layout = queueLayout({ prefix: 'qcr', cluster: false, shards: 1 });
    expect(layout.matchingPrefix(0)).toBe('qcr');
    expect(layout.webhookPrefix).toBe('qcr');
  });

  it('gives each shard its own hash tag, and a cluster a tagged webhook queue, dropping braces of the prefix', () => {
    const layout = queueLayout({ prefix: '{qcr}', cluster: true, shards: 4 });
    expect([0, 1, 2, 3].map(layout.matchingPrefix)).toEqual(['{qcr:0}', '{qcr:1}', '{qcr:2}', '{qcr:3}']);
    expect(layout.webhookPrefix).toBe('{qcr}');
    expect(() => layout.matchingPrefix(4)).toThrow(RangeError);
  });

  it('routes a user to one shard, the same in every process, and spreads users over all shards', () => {
    expect(shardOf(senderKey('p', 'u1'), 4)).toBe(shardOf(senderKey('p', 'u1'), 4));
    expect(shardOf('anything', 1)).toBe(0);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) counts[shardOf(senderKey('provider', `user-${i}`), 4)]! += 1;
    for (const count of counts) expect(count).toBeGreaterThan(800);
    // Pinned (FNV-1a of "abc" is 0x1a47e90b): a change of hash would move users' work to other queues between versions.
    expect(shardOf('abc', 1000)).toBe(0x1a47e90b % 1000);
    expect(shardOf('abc', 1000)).toBe(331);
  });
});

describe('cluster configuration', () => {
  it('takes several seed nodes only with REDIS_CLUSTER=true, and WORKER_SHARDS only within MATCHING_QUEUE_SHARDS', () => {
    const nodes = 'redis://127.0.0.1:7000,redis://127.0.0.1:7001';
    expect(() => parseConfig({ REDIS_URL: nodes })).toThrow(/REDIS_URL: several URLs need REDIS_CLUSTER=true/);
    expect(parseConfig({ REDIS_URL: nodes, REDIS_CLUSTER: 'true' }).REDIS_CLUSTER).toBe(true);
    expect(() => parseConfig({ REDIS_URL: 'http://x' })).toThrow(/REDIS_URL/);
    expect(parseConfig({ MATCHING_QUEUE_SHARDS: '4', WORKER_SHARDS: '2,0,2' }).WORKER_SHARDS).toEqual([0, 2]);
    expect(() => parseConfig({ MATCHING_QUEUE_SHARDS: '2', WORKER_SHARDS: '0,2' })).toThrow(
      /WORKER_SHARDS: shards 2 do not exist/,
    );
    const defaults = parseConfig({});
    expect([defaults.REDIS_CLUSTER, defaults.MATCHING_QUEUE_SHARDS, defaults.WORKER_SHARDS]).toEqual([false, 1, undefined]);
  });
});

describe('log throttle', () => {
  it('writes the first occurrence, counts the rest of the interval, and reports them with the next line', () => {
    let now = 0;
    const throttle = logThrottle(1000, () => now);
    const written: number[] = [];
    for (let i = 0; i < 50; i++) throttle.run((suppressed) => written.push(suppressed));
    now = 1000;
    throttle.run((suppressed) => written.push(suppressed));
    expect(written).toEqual([0, 49]);
  });
});
