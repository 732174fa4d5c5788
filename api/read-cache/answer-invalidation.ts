import { CHANGED_USER_BUCKETS, changedUsersChannel, changedUsersSchema, progressChannel } from '../../shared/live/channel.js';
import { publishOn } from '../../shared/live/publish.js';
import type { Logger } from '../../shared/observability/logger.js';
import type { RedisClient } from '../../shared/queue/connection.js';
import { answerKey, type ActiveAnswerCache } from './active-answer-cache.js';

/** Claims granted by one API replica, announced to the others: `{platformId, platformUserId}`. Hash-tagged when sharded. */
export const claimChannel = (prefix: string, sharded = false) =>
  sharded ? `{${prefix.replace(/[{}]/g, '') || 'qcr'}:read:claimed}` : `${prefix}:read:claimed`;

const escapeGlob = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');

/**
 * Keeps `answers` in step with the changes other processes make: the worker's
 * progress messages and other replicas' claims. On one Redis, every user's
 * live channel is followed by pattern; on a cluster (`sharded`), where
 * sharded pub/sub has no patterns, the worker's changed-user buckets
 * (shared/live/channel.ts) are. Runs on the live hub's subscriber connection,
 * so a live client that heard of a change and reads again finds the answer
 * already dropped. While the connection is down, notifications are lost: the
 * cache stops serving until the subscriptions are back.
 */
export function followAnswerInvalidations(subscriber: RedisClient, prefix: string, answers: ActiveAnswerCache, logger: Logger, sharded = false): void {
  if (answers.ttlMs <= 0) return;
  const claims = claimChannel(prefix, sharded);
  const onClaim = (raw: string) => {
    try {
      const { platformId, platformUserId, everyone } = JSON.parse(raw) as { platformId?: unknown; platformUserId?: unknown; everyone?: unknown };
      if (typeof platformId === 'string' && typeof platformUserId === 'string') answers.invalidateKey(answerKey(platformId, platformUserId));
      else if (typeof platformId === 'string' && everyone === true) answers.invalidatePlatform(platformId);
    } catch {
      logger.warn({ channel: claims }, 'ignoring malformed claim notice');
    }
  };

  let subscribe: () => Promise<unknown>;
  if (sharded) {
    const buckets = new Set(Array.from({ length: CHANGED_USER_BUCKETS }, (_, bucket) => changedUsersChannel(prefix, bucket)));
    subscriber.on('smessage', (channel: string, raw: string) => {
      if (channel === claims) return onClaim(raw);
      if (!buckets.has(channel)) return;
      const parsed = changedUsersSchema.safeParse(safeJson(raw));
      if (parsed.success) for (const userId of parsed.data) answers.invalidateUser(userId);
      else logger.warn({ channel }, 'ignoring malformed changed-users notice');
    });
    // One SSUBSCRIBE per channel: each may live in another slot.
    subscribe = () => Promise.all([...buckets, claims].map((channel) => subscriber.ssubscribe(channel)));
  } else {
    const pattern = progressChannel(escapeGlob(prefix), '*');
    const userChannelStart = progressChannel(prefix, '');
    subscriber.on('pmessage', (matched: string, channel: string) => {
      if (matched === pattern && channel.startsWith(userChannelStart)) answers.invalidateUser(channel.slice(userChannelStart.length));
    });
    subscriber.on('message', (channel: string, raw: string) => {
      if (channel === claims) onClaim(raw);
    });
    subscribe = () => Promise.all([subscriber.psubscribe(pattern), subscriber.subscribe(claims)]);
  }

  const follow = () =>
    subscribe().then(
      () => answers.follow(true),
      (error: unknown) => logger.warn({ err: error }, 'answer cache off: could not subscribe to changes'),
    );
  subscriber.on('close', () => answers.follow(false));
  // ioredis re-subscribes by itself after a reconnect; confirming it here tells us when notifications flow again.
  subscriber.on('ready', () => void follow());
  if (subscriber.status === 'ready') void follow();
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** Tells every replica (this one included) that a user's answer changed. Best effort: a lost notice expires with ANSWER_CACHE_TTL_MS. */
export async function announceClaim(redis: RedisClient, prefix: string, platformId: string, platformUserId: string, sharded = false): Promise<void> {
  await publishOn(redis, claimChannel(prefix, sharded), JSON.stringify({ platformId, platformUserId }), sharded);
}

/** Tells every replica (this one included) that all of a platform's answers changed (a test-mode reset). Best effort, like announceClaim. */
export async function announcePlatformChanged(redis: RedisClient, prefix: string, platformId: string, sharded = false): Promise<void> {
  await publishOn(redis, claimChannel(prefix, sharded), JSON.stringify({ platformId, everyone: true }), sharded);
}
