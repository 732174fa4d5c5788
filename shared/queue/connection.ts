import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { redisUrls } from '../config.js';
import { logThrottle } from '../observability/log-throttle.js';
import type { Logger } from '../observability/logger.js';
import { coalesceWrites } from './coalesced-writes.js';

/** A client of one Redis or of a Redis Cluster (REDIS_CLUSTER=true): the same commands, routed by slot on a cluster. */
export type RedisClient = Redis | Cluster;

export type RedisRole = 'producer' | 'worker' | 'subscriber';

export interface RedisConnectOptions {
  /** REDIS_CLUSTER: an ioredis Cluster seeded from every URL of REDIS_URL. */
  cluster?: boolean;
  /** Where connection errors are reported (rate-limited); without one they are dropped (tests, tools). */
  logger?: Logger;
  /** The client's name in log lines, e.g. 'producer', 'subscriber'. */
  name?: string;
  /** CLIENT SETNAME: how the connection shows in CLIENT LIST (one Redis only). */
  connectionName?: string;
}

/** A CLIENT SETNAME value from any text (Redis refuses spaces and newlines there). */
export const connectionNameOf = (text: string) => text.replace(/[^\w:{}.-]/g, '_');

// A connection error repeats on every reconnect attempt (several a second): one line per this long.
const ERROR_LOG_INTERVAL_MS = 10_000;
// Reconnect with a capped backoff; never give up.
const retryDelay = (times: number) => Math.min(times * 200, 2000);

/**
 * Producers fail fast while Redis is away (the event is already safe in
 * Postgres and the reconciler enqueues it later); workers wait and retry
 * forever, as BullMQ requires (maxRetriesPerRequest: null). Subscribers of a
 * cluster use sharded pub/sub (one connection per master, SSUBSCRIBE).
 */
export function createRedis(url: string, role: RedisRole, options?: RedisConnectOptions & { cluster?: false }): Redis;
export function createRedis(url: string, role: RedisRole, options: RedisConnectOptions): RedisClient;
export function createRedis(url: string, role: RedisRole, options: RedisConnectOptions = {}): RedisClient {
  const perCommand: RedisOptions =
    role === 'producer'
      ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 }
      : { maxRetriesPerRequest: null, enableOfflineQueue: true };
  const client = options.cluster
    ? createCluster(url, role, perCommand)
    : new Redis(url, {
        ...perCommand,
        lazyConnect: false,
        retryStrategy: retryDelay,
        ...(options.connectionName ? { connectionName: options.connectionName } : {}),
      });
  const seeds = options.cluster
    ? redisUrls(url)
        .map((seed) => new URL(seed).host)
        .join(', ')
    : undefined;
  reportErrors(client, options.logger, options.name ?? role, seeds);
  // A subscriber sends little; producers and workers send bursts (coalesced-writes.ts).
  if (role !== 'subscriber') coalesceWrites(client);
  return client;
}

function createCluster(url: string, role: RedisRole, perCommand: RedisOptions): Cluster {
  const seeds = redisUrls(url).map((seed) => new URL(seed));
  const first = seeds[0]!;
  const { enableOfflineQueue, ...nodeOptions } = perCommand;
  const clusterOptions: ClusterOptions = {
    enableOfflineQueue: enableOfflineQueue ?? true,
    clusterRetryStrategy: retryDelay,
    // A failover takes the node timeout (seconds): commands wait and retry meanwhile instead of failing at once.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 300,
    retryDelayOnTryAgain: 200,
    slotsRefreshTimeout: 2000,
    // Sharded pub/sub (SSUBSCRIBE): one subscriber connection per master, following slot moves.
    shardedSubscribers: role === 'subscriber',
    redisOptions: {
      ...nodeOptions,
      ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
      ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
      ...(first.protocol === 'rediss:' ? { tls: {} } : {}),
    },
  };
  return new Cluster(
    seeds.map((seed) => ({ host: seed.hostname, port: Number(seed.port || 6379) })),
    clusterOptions,
  );
}

/**
 * Redis 7 tells each subscriber of a sharded channel whose slot moves away with
 * an SUNSUBSCRIBE of its own; ioredis, whose queue holds no command for it,
 * reports it as a "Command queue state error". Not a failure: the channel's
 * subscriber follows the slot map (api/read-cache/notice-feed.ts).
 */
function droppedShardedChannel(error: unknown): string | undefined {
  if (!(error instanceof Error) || !error.message.startsWith('Command queue state error')) return undefined;
  return /Last reply: sunsubscribe,([^,]+),\d+$/.exec(error.message)?.[1];
}

/** The log line of a connection failure: a cluster none of whose seeds answers says so, naming them. */
function describeFailure(client: RedisClient, error: unknown, seeds: string | undefined): string {
  if (!(client instanceof Cluster) || !(error instanceof Error) || !error.message.startsWith('Failed to refresh slots cache'))
    return 'redis connection error';
  return `redis cluster unreachable: no node of REDIS_URL (${seeds}) answered CLUSTER SLOTS; retrying (REDIS_CLUSTER=true needs cluster-mode nodes)`;
}

/**
 * ioredis emits 'error' on every failed reconnect (an unhandled one would
 * crash the process), and a cluster 'node error' per failing node. Both are
 * logged, at most one line per interval with the count left out, and the
 * return of the connection after a failure is logged too.
 */
function reportErrors(client: RedisClient, logger: Logger | undefined, name: string, seeds?: string) {
  const throttle = logThrottle(ERROR_LOG_INTERVAL_MS);
  // A cluster's nodes fail on their own throttle: a whole-cluster failure is the client's error and must not be suppressed by them.
  const nodeThrottle = logThrottle(ERROR_LOG_INTERVAL_MS);
  let failing = false;
  const onError = (error: unknown, node?: string) => {
    const dropped = droppedShardedChannel(error);
    if (dropped !== undefined)
      return logger?.info(
        { client: name, channel: dropped },
        'the server dropped a sharded subscription (its slot moved away); its subscriber follows the slot to the new owner',
      );
    failing = true;
    if (!logger) return;
    (node ? nodeThrottle : throttle).run((suppressed) =>
      logger.warn({ err: error, client: name, ...(node ? { node } : {}), suppressed }, describeFailure(client, error, seeds)),
    );
  };
  client.on('error', (error: unknown) => onError(error));
  if (client instanceof Cluster) client.on('node error', (error: unknown, node: string) => onError(error, node));
  client.on('ready', () => {
    if (!failing) return;
    failing = false;
    logger?.info({ client: name, suppressed: throttle.pending }, 'redis connection ready again');
  });
}

/**
 * A plain connection to one node of the cluster REDIS_URL seeds (its
 * credentials and TLS), for work that must reach a given node itself: a
 * sharded subscription held on the master that owns its channels.
 */
export function createNodeConnection(
  url: string,
  node: { host: string; port: number },
  options: { logger?: Logger; connectionName?: string } = {},
): Redis {
  const first = new URL(redisUrls(url)[0]!);
  const client = new Redis({
    host: node.host,
    port: node.port,
    ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
    ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
    ...(first.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
    retryStrategy: retryDelay,
    ...(options.connectionName ? { connectionName: options.connectionName } : {}),
  });
  reportErrors(client, options.logger, `subscriber ${node.host}:${node.port}`);
  return client;
}
