import type { RedisClient } from '../queue/connection.js';

/**
 * Publishes on a channel of shared/live/channel.ts: sharded (SPUBLISH, a
 * cluster's shard owning the channel's slot delivers it) or classic (PUBLISH).
 */
export const publishOn = (redis: RedisClient, channel: string, message: string, sharded: boolean): Promise<unknown> =>
  sharded ? redis.spublish(channel, message) : redis.publish(channel, message);
