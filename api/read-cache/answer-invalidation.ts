import type { Redis } from 'ioredis';
import { progressChannel } from '../../shared/live/channel.js';
import type { Logger } from '../../shared/observability/logger.js';
import { answerKey, type ActiveAnswerCache } from './active-answer-cache.js';

/** Claims granted by one API replica, announced to the others: `{platformId, platformUserId}`. */
export const claimChannel = (prefix: string) => `${prefix}:read:claimed`;

const escapeGlob = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');

/**
 * Keeps `answers` in step with the changes other processes make: the worker's
 * progress messages (every user's live channel, by pattern) and other
 * replicas' claims. Runs on the live hub's subscriber connection, so a live
 * client that heard of a change and reads again finds the answer already
 * dropped. While the connection is down, notifications are lost: the cache
 * stops serving until the subscriptions are back.
 */
export function followAnswerInvalidations(subscriber: Redis, prefix: string, answers: ActiveAnswerCache, logger: Logger): void {
  if (answers.ttlMs <= 0) return;
  const pattern = progressChannel(escapeGlob(prefix), '*');
  const userChannelStart = progressChannel(prefix, '');
  const claims = claimChannel(prefix);

  subscriber.on('pmessage', (matched: string, channel: string) => {
    if (matched === pattern && channel.startsWith(userChannelStart)) answers.invalidateUser(channel.slice(userChannelStart.length));
  });
  subscriber.on('message', (channel: string, raw: string) => {
    if (channel !== claims) return;
    try {
      const { platformId, platformUserId } = JSON.parse(raw) as { platformId?: unknown; platformUserId?: unknown };
      if (typeof platformId === 'string' && typeof platformUserId === 'string') answers.invalidateKey(answerKey(platformId, platformUserId));
    } catch {
      logger.warn({ channel }, 'ignoring malformed claim notice');
    }
  });

  const subscribe = () =>
    Promise.all([subscriber.psubscribe(pattern), subscriber.subscribe(claims)]).then(
      () => answers.follow(true),
      (error: unknown) => logger.warn({ err: error }, 'answer cache off: could not subscribe to changes'),
    );
  subscriber.on('close', () => answers.follow(false));
  // ioredis re-subscribes by itself after a reconnect; confirming it here tells us when notifications flow again.
  subscriber.on('ready', () => void subscribe());
  if (subscriber.status === 'ready') void subscribe();
}

/** Tells every replica (this one included) that a user's answer changed. Best effort: a lost notice expires with the TTL. */
export async function announceClaim(redis: Redis, prefix: string, platformId: string, platformUserId: string): Promise<void> {
  await redis.publish(claimChannel(prefix), JSON.stringify({ platformId, platformUserId }));
}
