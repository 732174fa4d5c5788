import type { RedisClient } from '../../shared/queue/connection.js';

/** Sends a (un)subscribe command now or, during the handshake, once the connection is ready; in the order asked for. */
export type SubscriberCommandSender = <T>(command: () => Promise<T>) => Promise<T>;

/**
 * Keeps the hub's SUBSCRIBEs and UNSUBSCRIBEs out of the subscriber
 * connection's handshake (redis/ioredis#2037). In status `connect`, between
 * the socket connecting and its ready check, ioredis 5 writes a SUBSCRIBE
 * straight to the socket instead of queueing it. Redis's reply puts the
 * client in subscriber mode, the ready check's INFO is then refused, and
 * ioredis drops the connection and reconnects without that channel: it
 * re-subscribes only what a connection held once ready. On a first connection
 * the `ready` that follows is its first, so no reconnect is noticed either. A
 * command asked for then waits for `ready`, and so does every command after
 * it, so the order holds. In the other states ioredis queues commands until
 * ready by itself.
 */
export function sendOutsideHandshake(redis: RedisClient): SubscriberCommandSender {
  const held: (() => void)[] = [];
  redis.on('ready', () => {
    for (const send of held.splice(0)) send();
  });
  return (command) => {
    if (held.length === 0 && redis.status !== 'connect') return command();
    return new Promise((resolve, reject) => held.push(() => command().then(resolve, reject)));
  };
}
