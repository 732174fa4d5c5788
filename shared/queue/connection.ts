import { Redis, type RedisOptions } from 'ioredis';

/**
 * Producers fail fast while Redis is away (the event is already safe in
 * Postgres and the reconciler enqueues it later); workers wait and retry
 * forever, as BullMQ requires (maxRetriesPerRequest: null).
 */
export function createRedis(url: string, role: 'producer' | 'worker' | 'subscriber'): Redis {
  const options: RedisOptions =
    role === 'producer'
      ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 }
      : { maxRetriesPerRequest: null, enableOfflineQueue: true };
  const redis = new Redis(url, {
    ...options,
    lazyConnect: false,
    // Reconnect with a capped backoff; never give up.
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  // ioredis emits 'error' on every failed reconnect; an unhandled one would crash the process.
  redis.on('error', () => {});
  return redis;
}
