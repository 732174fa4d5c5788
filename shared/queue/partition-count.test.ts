import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../config.js';
import { createLogger } from '../observability/logger.js';
import { uniqueSuffix } from '../testing/database.js';
import { createRedis } from './connection.js';
import { checkPartitionCount, replacePartitionCount, withDeploymentPartitions } from './partition-count.js';
import { queueLayout } from './partitions.js';

// The deployment's partition count, kept in Redis by the first process: one started with another refuses to run.

const redis = createRedis('redis://127.0.0.1:6379', 'producer');
afterAll(() => redis.disconnect());

function capture() {
  const lines: { level: number; msg: string; configured?: number; stored?: number }[] = [];
  const logger = createLogger({
    level: 'info',
    name: 'partition-count-test',
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  const exits: number[] = [];
  return { logger, lines, exits, exit: (code: number) => void exits.push(code) };
}

describe('checkPartitionCount', () => {
  it('stores the first count; the same count passes, another stops the process saying how to change it safely', async () => {
    const prefix = `test-count-${uniqueSuffix()}`;
    const first = capture();
    await checkPartitionCount({ redis, layout: queueLayout({ prefix, cluster: false, partitions: 64 }), ...first });
    expect(await redis.get(`${prefix}:partitions:count`)).toBe('64');
    const same = capture();
    await checkPartitionCount({ redis, layout: queueLayout({ prefix, cluster: false, partitions: 64 }), ...same });
    expect([first.exits, same.exits]).toEqual([[], []]);

    const other = capture();
    await checkPartitionCount({ redis, layout: queueLayout({ prefix, cluster: false, partitions: 128 }), ...other });
    expect(other.exits).toEqual([1]);
    const fatal = other.lines.find((line) => line.level === 60)!;
    expect(fatal).toMatchObject({ configured: 128, stored: 64 });
    expect(fatal.msg).toContain('MATCHING_PARTITIONS=128, but this deployment');
    expect(fatal.msg).toContain('start this process with MATCHING_PARTITIONS=64');
    expect(fatal.msg).toContain('`quest-chains workers set-partitions 128`');

    // The operator's way to change it, once every process is stopped.
    await replacePartitionCount(redis, queueLayout({ prefix, cluster: false, partitions: 128 }), 128);
    const after = capture();
    await checkPartitionCount({ redis, layout: queueLayout({ prefix, cluster: false, partitions: 128 }), ...after });
    expect(after.exits).toEqual([]);
    await redis.del(`${prefix}:partitions:count`);
  });

  it('does not hold a start up while Redis does not answer: it warns and asks again later', async () => {
    const away = createRedis('redis://127.0.0.1:1', 'producer');
    const log = capture();
    const started = performance.now();
    await checkPartitionCount({ redis: away, layout: queueLayout({ prefix: 'x', cluster: false, partitions: 8 }), ...log });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(log.exits).toEqual([]);
    expect(log.lines.map((line) => line.msg)).toContain(
      "could not compare MATCHING_PARTITIONS with the deployment's count: Redis did not answer; will ask again",
    );
    away.disconnect();
  });
});

describe('withDeploymentPartitions', () => {
  it("takes the deployment's stored count when MATCHING_PARTITIONS is unset, and only then", async () => {
    const prefix = `test-adopt-${uniqueSuffix()}`;
    const env = { QUEUE_PREFIX: prefix };
    const unset = parseConfig(env);
    // A new deployment: nothing stored, the default stands.
    expect((await withDeploymentPartitions(unset, env)).MATCHING_PARTITIONS).toBe(16);
    // A deployment started before the default changed stored 64: a process with no setting keeps it.
    await redis.set(`${prefix}:partitions:count`, '64');
    expect((await withDeploymentPartitions(unset, env)).MATCHING_PARTITIONS).toBe(64);
    // Something no setting could give is not taken (checkPartitionCount reports it).
    await redis.set(`${prefix}:partitions:count`, 'many');
    expect((await withDeploymentPartitions(unset, env)).MATCHING_PARTITIONS).toBe(16);
    await redis.set(`${prefix}:partitions:count`, '64');
    // A setting, new name or old, is the operator's word: checkPartitionCount judges it.
    for (const set of [
      { ...env, MATCHING_PARTITIONS: '32' },
      { ...env, MATCHING_QUEUE_SHARDS: '32' },
    ])
      expect((await withDeploymentPartitions(parseConfig(set), set)).MATCHING_PARTITIONS).toBe(32);
    await redis.del(`${prefix}:partitions:count`);
  });

  it('judges WORKER_SHARDS pins against the count it settles on, stored or set', async () => {
    const prefix = `test-pins-${uniqueSuffix()}`;
    const env = { QUEUE_PREFIX: prefix, WORKER_SHARDS: '15,16,20' };
    // A new deployment: the default 16 numbers its partitions 0 to 15.
    await expect(withDeploymentPartitions(parseConfig(env), env)).rejects.toThrow(
      'WORKER_SHARDS: partitions 16,20 do not exist: MATCHING_PARTITIONS=16 numbers them 0 to 15',
    );
    // A deployment stored at 64 has them: no setting is needed beside the pins.
    await redis.set(`${prefix}:partitions:count`, '64');
    expect((await withDeploymentPartitions(parseConfig(env), env)).WORKER_SHARDS).toEqual([15, 16, 20]);
    // A count set is judged as set, whatever is stored.
    const set = { ...env, MATCHING_PARTITIONS: '18' };
    expect(() => parseConfig(set)).toThrow(
      'WORKER_SHARDS: partition 20 does not exist: MATCHING_PARTITIONS=18 numbers them 0 to 17',
    );
    await redis.del(`${prefix}:partitions:count`);
  });

  it('keeps the default, without holding the start up, when Redis does not answer', async () => {
    const env = { REDIS_URL: 'redis://127.0.0.1:1' };
    const started = performance.now();
    expect((await withDeploymentPartitions(parseConfig(env), env)).MATCHING_PARTITIONS).toBe(16);
    expect(performance.now() - started).toBeLessThan(3000);
  });
});
