import { CHANGED_USER_BUCKETS, changedUsersChannel, changedUsersSchema, progressChannel } from '../../shared/live/channel.js';
import { publishOn } from '../../shared/live/publish.js';
import type { Logger } from '../../shared/observability/logger.js';
import type { RedisClient } from '../../shared/queue/connection.js';
import type { AppDeps } from '../app-env.js';
import { type ActiveAnswerCache, answerKey } from './active-answer-cache.js';

/** What one API replica changed, announced to the others (forgetAnswers): a claim `{platformId, platformUserId}`, a test-data reset `{platformId, everyone: true}`. Hash-tagged when sharded. */
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
export function followAnswerInvalidations(
  subscriber: RedisClient,
  prefix: string,
  answers: ActiveAnswerCache,
  logger: Logger,
  sharded = false,
): void {
  if (answers.ttlMs <= 0) return;
  const claims = claimChannel(prefix, sharded);
  const onClaim = (raw: string) => {
    try {
      const { platformId, platformUserId, everyone } = JSON.parse(raw) as {
        platformId?: unknown;
        platformUserId?: unknown;
        everyone?: unknown;
      };
      if (typeof platformId === 'string' && typeof platformUserId === 'string')
        answers.invalidateKey(answerKey(platformId, platformUserId));
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
      if (matched === pattern && channel.startsWith(userChannelStart))
        answers.invalidateUser(channel.slice(userChannelStart.length));
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

/**
 * Drops answers that another change than progress made stale (no progress
 * notice tells of it): one user's (a claim) or, without `platformUserId`,
 * every answer of the platform (a test-mode reset). This replica drops them
 * at once; the others are told on the claims channel, best effort: should
 * that fail, theirs go with ANSWER_CACHE_TTL_MS.
 */
export async function forgetAnswers(
  deps: Pick<AppDeps, 'chainCache' | 'redis' | 'config' | 'logger'>,
  platformId: string,
  platformUserId?: string,
): Promise<void> {
  const { answers } = deps.chainCache;
  if (platformUserId === undefined) answers.invalidatePlatform(platformId);
  else answers.invalidateKey(answerKey(platformId, platformUserId));
  const notice = platformUserId === undefined ? { platformId, everyone: true } : { platformId, platformUserId };
  await publishOn(
    deps.redis,
    claimChannel(deps.config.QUEUE_PREFIX, deps.config.REDIS_CLUSTER),
    JSON.stringify(notice),
    deps.config.REDIS_CLUSTER,
  ).catch((error: unknown) =>
    deps.logger.warn(
      { err: error },
      'change not announced to other replicas; their cached answers expire with ANSWER_CACHE_TTL_MS',
    ),
  );
}
