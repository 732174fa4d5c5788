import { withTimeout } from '../async/with-timeout.js';
import { type Config, checkPinnedPartitions, setsPartitionCount } from '../config.js';
import type { Logger } from '../observability/logger.js';
import { createRedis, type RedisClient } from './connection.js';
import { type QueueLayout, queueLayout } from './partitions.js';

// KEYS: the count's key. ARGV: this process's count. Stores it when none is stored; answers the stored one.
const STORE_OR_READ = `local stored = redis.call('GET', KEYS[1])
  if stored then return stored end
  redis.call('SET', KEYS[1], ARGV[1])
  return ARGV[1]`;

const ANSWER_TIMEOUT_MS = 2000;
const RETRY_MS = 10_000;

/** The operator's way out of a count that differs from the deployment's (docs/operations.md, "Changing MATCHING_PARTITIONS"). */
function partitionCountMismatch(configured: number, stored: number, key: string): string {
  return (
    `MATCHING_PARTITIONS=${configured}, but this deployment's matching queues are split into ${stored} partitions ` +
    `(Redis key ${key}): a process with another count would put users' work where no worker looks for it. ` +
    `To keep ${stored}, start this process with MATCHING_PARTITIONS=${stored}. To change it to ${configured}: stop the ` +
    'APIs, let the workers drain the matching queues (`quest-chains workers` shows none waiting), stop the workers, run ' +
    `\`quest-chains workers set-partitions ${configured}\`, then start every process with MATCHING_PARTITIONS=${configured}.`
  );
}

/** The deployment's partition count as stored in Redis, or null before any process has started (it stores nothing). */
export async function readPartitionCount(redis: RedisClient, layout: QueueLayout): Promise<number | null> {
  const stored = await redis.get(layout.coordination.partitionCount);
  return stored === null ? null : Number(stored);
}

/** The deployment's partition count as stored in Redis, storing `layout.partitions` when none is. */
async function storeOrReadPartitionCount(redis: RedisClient, layout: QueueLayout): Promise<number> {
  return Number(await redis.eval(STORE_OR_READ, 1, layout.coordination.partitionCount, String(layout.partitions)));
}

/**
 * Refuses to run with a partition count other than the deployment's: the
 * first process to start stores its MATCHING_PARTITIONS in Redis, and every
 * process compares its own with it. Resolves after the first answer, or after
 * a short wait when Redis does not answer (a process must start without Redis:
 * events are safe in Postgres); it then asks again until Redis answers. On a
 * mismatch it logs why and what to do, and calls `exit(1)`.
 */
export async function checkPartitionCount(deps: {
  redis: RedisClient;
  layout: QueueLayout;
  logger: Logger;
  exit: (code: number) => void;
}): Promise<void> {
  const { redis, layout, logger } = deps;
  const attempt = async (): Promise<boolean> => {
    await connected(redis, ANSWER_TIMEOUT_MS);
    const stored = await withTimeout(storeOrReadPartitionCount(redis, layout), ANSWER_TIMEOUT_MS, 'redis did not answer');
    if (stored !== layout.partitions) {
      logger.fatal(
        { configured: layout.partitions, stored },
        partitionCountMismatch(layout.partitions, stored, layout.coordination.partitionCount),
      );
      deps.exit(1);
    }
    return true;
  };
  const retry = () => {
    const timer = setTimeout(() => {
      attempt().catch(retry);
    }, RETRY_MS);
    timer.unref();
  };
  await attempt().catch((error: unknown) => {
    logger.warn(
      { err: error },
      "could not compare MATCHING_PARTITIONS with the deployment's count: Redis did not answer; will ask again",
    );
    retry();
  });
}

/** A client that fails fast (the producer's) refuses commands until it has connected: this waits for that, a while. */
function connected(redis: RedisClient, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      reject(new Error('redis did not answer'));
    }, ms);
    redis.once('ready', onReady);
  });
}

/** Stores `count` as the deployment's partition count (the CLI's set-partitions, once every process is stopped). */
export async function replacePartitionCount(redis: RedisClient, layout: QueueLayout, count: number): Promise<void> {
  await redis.set(layout.coordination.partitionCount, String(count));
}

/**
 * The config a process runs with when MATCHING_PARTITIONS is unset: the
 * deployment's stored count when Redis answers within a short wait, so that a
 * deployment keeps its count through an upgrade that changed the default (64
 * before 16). When nothing is stored (a new deployment) or Redis does not
 * answer, the default; checkPartitionCount then compares it with what the
 * deployment stored as soon as Redis answers. WORKER_SHARDS pins are checked
 * against the count it answers (a ConfigError names those past it).
 */
export async function withDeploymentPartitions(
  config: Config,
  env: Record<string, string | undefined>,
  logger?: Logger,
): Promise<Config> {
  // A count set is the operator's word, and parseConfig has judged the pins against it.
  if (setsPartitionCount(env)) return config;
  return checkPinnedPartitions(await storedPartitionCount(config, logger));
}

async function storedPartitionCount(config: Config, logger?: Logger): Promise<Config> {
  const layout = queueLayout({
    prefix: config.QUEUE_PREFIX,
    cluster: config.REDIS_CLUSTER,
    partitions: config.MATCHING_PARTITIONS,
  });
  const redis = createRedis(config.REDIS_URL, 'producer', { cluster: config.REDIS_CLUSTER });
  redis.on('error', () => {});
  try {
    await connected(redis, ANSWER_TIMEOUT_MS);
    const stored = await withTimeout(readPartitionCount(redis, layout), ANSWER_TIMEOUT_MS, 'redis did not answer');
    // Only a count a setting could give (set-partitions checks it too); anything else is checkPartitionCount's to report.
    if (stored === null || stored === config.MATCHING_PARTITIONS || !Number.isInteger(stored) || stored < 1 || stored > 1024)
      return config;
    logger?.info({ partitions: stored }, "MATCHING_PARTITIONS unset: using the deployment's stored partition count");
    return { ...config, MATCHING_PARTITIONS: stored };
  } catch {
    return config;
  } finally {
    redis.disconnect();
  }
}
