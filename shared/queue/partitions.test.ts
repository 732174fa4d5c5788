import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config.js';
import { logThrottle } from '../observability/log-throttle.js';
import { eventPartition, partitionOf, queueLayout, senderKey } from './partitions.js';

describe('queue layout', () => {
  it('keeps the unpartitioned queue of earlier versions on one Redis with one partition, and has no other then', () => {
    const layout = queueLayout({ prefix: 'qcr', cluster: false, partitions: 1 });
    expect(layout.matchingPrefix(0)).toBe('qcr');
    expect(layout.legacyMatchingPrefix).toBeNull();
    expect(layout.webhookPrefix).toBe('qcr');
    expect(layout.leaseKey(0)).toBe('qcr:partition-lease');
  });

  it('gives each partition its own hash tag, and names the queue of earlier versions for partition 0 to drain', () => {
    const layout = queueLayout({ prefix: 'qcr', cluster: false, partitions: 64 });
    expect([0, 63].map(layout.matchingPrefix)).toEqual(['{qcr:0}', '{qcr:63}']);
    expect(layout.legacyMatchingPrefix).toBe('qcr');
    expect(layout.coordination.partitionCount).toBe('qcr:partitions:count');
  });

  it('on a cluster: tagged queues, each lease in its partition slot, coordination in the webhook queue slot, no bare queue', () => {
    const layout = queueLayout({ prefix: '{qcr}', cluster: true, partitions: 4 });
    expect([0, 1, 2, 3].map(layout.matchingPrefix)).toEqual(['{qcr:0}', '{qcr:1}', '{qcr:2}', '{qcr:3}']);
    expect(layout.leaseKey(2)).toBe('{qcr:2}:partition-lease');
    expect(layout.webhookPrefix).toBe('{qcr}');
    expect(Object.values(layout.coordination).every((key) => key.startsWith('{qcr}:'))).toBe(true);
    expect(layout.legacyMatchingPrefix).toBeNull();
    expect(() => layout.matchingPrefix(4)).toThrow(RangeError);
  });

  it('routes a user to one partition, the same in every process, and spreads users over all partitions', () => {
    expect(partitionOf(senderKey('p', 'u1'), 4)).toBe(partitionOf(senderKey('p', 'u1'), 4));
    expect(partitionOf('anything', 1)).toBe(0);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) counts[partitionOf(senderKey('provider', `user-${i}`), 4)]! += 1;
    for (const count of counts) expect(count).toBeGreaterThan(800);
    // Pinned (FNV-1a of "abc" is 0x1a47e90b): a change of hash would move users' work to other queues between versions.
    expect(partitionOf('abc', 1000)).toBe(0x1a47e90b % 1000);
    expect(partitionOf('abc', 1000)).toBe(331);
  });

  it("puts an event in its sender's user's partition, and one whose sender gave no user id by the event's own id", () => {
    const events = Array.from({ length: 64 }, (_, i) => ({ eventId: `event-${i}`, providerId: 'provider', userId: `user-${i}` }));
    for (const event of events) expect(eventPartition(event, 16)).toBe(partitionOf(senderKey('provider', event.userId), 16));
    // The user's key, not the event's: the two differ for most of these events.
    expect(events.filter((event) => eventPartition(event, 16) !== partitionOf(event.eventId, 16)).length).toBeGreaterThan(32);
    expect(eventPartition({ eventId: 'event-1', providerId: 'provider' }, 16)).toBe(partitionOf('event-1', 16));
  });
});

describe('partition and process settings', () => {
  it('takes several seed nodes only with REDIS_CLUSTER=true', () => {
    const nodes = 'redis://127.0.0.1:7000,redis://127.0.0.1:7001';
    expect(() => parseConfig({ REDIS_URL: nodes })).toThrow(/REDIS_URL: several URLs need REDIS_CLUSTER=true/);
    expect(parseConfig({ REDIS_URL: nodes, REDIS_CLUSTER: 'true' }).REDIS_CLUSTER).toBe(true);
    expect(() => parseConfig({ REDIS_URL: 'http://x' })).toThrow(/REDIS_URL/);
    const defaults = parseConfig({});
    expect([defaults.REDIS_CLUSTER, defaults.MATCHING_PARTITIONS, defaults.WORKER_SHARDS]).toEqual([false, 16, undefined]);
  });

  it('pins WORKER_SHARDS only to partitions that exist, and says which do not', () => {
    expect(parseConfig({ MATCHING_PARTITIONS: '4', WORKER_SHARDS: '2,0,2' }).WORKER_SHARDS).toEqual([0, 2]);
    expect(() => parseConfig({ MATCHING_PARTITIONS: '2', WORKER_SHARDS: '0,2' })).toThrow(
      'WORKER_SHARDS: partition 2 does not exist: MATCHING_PARTITIONS=2 numbers them 0 to 1',
    );
    // With the count unset, the deployment's count judges them (withDeploymentPartitions, partition-count.test.ts).
    expect(parseConfig({ WORKER_SHARDS: '15,16,20' }).WORKER_SHARDS).toEqual([15, 16, 20]);
    expect(() => parseConfig({ WORKER_SHARDS: '1,x' })).toThrow(/WORKER_SHARDS: must be comma-separated partition numbers/);
  });

  it('reads MATCHING_QUEUE_SHARDS, the old name, as MATCHING_PARTITIONS, and refuses the two set apart', () => {
    expect(parseConfig({ MATCHING_QUEUE_SHARDS: '4', WORKER_SHARDS: '3' }).MATCHING_PARTITIONS).toBe(4);
    expect(parseConfig({ MATCHING_QUEUE_SHARDS: '8', MATCHING_PARTITIONS: '8' }).MATCHING_PARTITIONS).toBe(8);
    expect(() => parseConfig({ MATCHING_QUEUE_SHARDS: '4', MATCHING_PARTITIONS: '64' })).toThrow(
      /MATCHING_QUEUE_SHARDS: is the old name of MATCHING_PARTITIONS and says 4, MATCHING_PARTITIONS 64/,
    );
  });

  it.each(['0', '-1', '1.5', 'two', '2x', '257'])(
    'refuses API_PROCESSES and WORKER_PROCESSES of %s, naming the variable',
    (bad) => {
      expect(() => parseConfig({ API_PROCESSES: bad })).toThrow(
        'API_PROCESSES: must be a whole number of processes from 1 to 256, e.g. API_PROCESSES=2',
      );
      expect(() => parseConfig({ WORKER_PROCESSES: bad })).toThrow(
        'WORKER_PROCESSES: must be a whole number of processes from 1 to 256, e.g. WORKER_PROCESSES=2',
      );
    },
  );

  it('runs one API and one worker unless told otherwise', () => {
    const defaults = parseConfig({});
    expect([defaults.API_PROCESSES, defaults.WORKER_PROCESSES]).toEqual([1, 1]);
    expect(parseConfig({ API_PROCESSES: '4', WORKER_PROCESSES: '3' })).toMatchObject({ API_PROCESSES: 4, WORKER_PROCESSES: 3 });
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
