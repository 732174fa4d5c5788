import { Cluster, type Redis } from 'ioredis';
import type { ChangeNotices } from '../../shared/live/change-notices.js';
import { createChangePublisher } from '../../shared/live/change-publisher.js';
import {
  CHANGED_USER_BUCKETS,
  changedUsersChannel,
  changedUsersSchema,
  changeNoticeSchema,
  changesChannel,
  PROBE_USER,
  probeToken,
  progressChannel,
} from '../../shared/live/channel.js';
import { publishOn } from '../../shared/live/publish.js';
import type { Logger } from '../../shared/observability/logger.js';
import type { RedisClient } from '../../shared/queue/connection.js';
import { answerKey } from './active-answer-cache.js';
import type { ActiveChainCache } from './active-chain-cache.js';
import { type NoticeFeed, type NoticeListener, openClassicFeed, openShardedFeed } from './notice-feed.js';
import { NoticeWatch } from './notice-watch.js';

export interface ChangeFollowingOptions {
  /** The producer connection: notices and probes go out on it. */
  redis: RedisClient;
  /** A new subscriber connection (one Redis), or a node's (a cluster, given its host and port). */
  connect: (node?: { host: string; port: number }) => Redis;
  prefix: string;
  sharded: boolean;
  probeIntervalMs: number;
  chainCache: ActiveChainCache;
  logger: Logger;
}

/**
 * The API's side of change notices. `changes` is the ChangeNotices the API's
 * use-cases are given: it drops this process's own caches at once, then tells
 * the others. `follow` subscribes to every notice (progress from the worker,
 * changes from any process) and drops what each one names; a NoticeWatch
 * proves the subscriptions deliver and turns the answer cache off while one may not.
 */
export function createChangeFollowing(options: ChangeFollowingOptions) {
  const { chainCache, prefix, sharded, logger } = options;
  const { answers } = chainCache;
  const publisher = createChangePublisher({ redis: options.redis, prefix, sharded, logger });
  const changes: ChangeNotices = {
    async chainsChanged(platformId) {
      chainCache.invalidate(platformId);
      await publisher.chainsChanged(platformId);
    },
    async answerChanged(platformId, platformUserId) {
      answers.invalidateKey(answerKey(platformId, platformUserId));
      await publisher.answerChanged(platformId, platformUserId);
    },
    async answersChanged(platformId) {
      answers.invalidatePlatform(platformId);
      await publisher.answersChanged(platformId);
    },
    userRegistered: (platformId, platformUserId, userId) => publisher.userRegistered(platformId, platformUserId, userId),
  };

  let feed: NoticeFeed | undefined;
  let watch: NoticeWatch | undefined;

  return {
    changes,
    /** Whether cached answers may be served now (every notice channel proved to deliver). */
    get serving(): boolean {
      return watch?.isServing ?? false;
    },
    follow(): void {
      const changeChannel = changesChannel(prefix, sharded);
      const buckets = new Set(Array.from({ length: CHANGED_USER_BUCKETS }, (_, bucket) => changedUsersChannel(prefix, bucket)));
      const userChannelStart = progressChannel(prefix, '');
      const listener: NoticeListener = (channel, raw) => {
        const token = probeToken(raw);
        if (token !== undefined) return watch?.heard(channel, token);
        if (channel === changeChannel) return apply(raw);
        if (sharded) {
          if (!buckets.has(channel)) return;
          const parsed = changedUsersSchema.safeParse(safeJson(raw));
          if (parsed.success) for (const userId of parsed.data) answers.invalidateUser(userId);
          else logger.warn({ channel }, 'ignoring malformed changed-users notice');
        } else if (channel.startsWith(userChannelStart)) answers.invalidateUser(channel.slice(userChannelStart.length));
      };
      const apply = (raw: string) => {
        const parsed = changeNoticeSchema.safeParse(safeJson(raw));
        if (!parsed.success) return logger.warn({ channel: changeChannel }, 'ignoring malformed change notice');
        const notice = parsed.data;
        if (notice.kind === 'chains') chainCache.invalidate(notice.platformId);
        else if (notice.kind === 'answer') answers.invalidateKey(answerKey(notice.platformId, notice.platformUserId));
        else if (notice.kind === 'answers') answers.invalidatePlatform(notice.platformId);
        else answers.clear();
      };
      const { redis } = options;
      feed =
        sharded && redis instanceof Cluster
          ? openShardedFeed({
              cluster: redis,
              connect: options.connect,
              channels: [...buckets, changeChannel],
              listener,
            })
          : openClassicFeed({
              connection: options.connect(),
              patternStart: userChannelStart,
              patternProbe: progressChannel(prefix, PROBE_USER),
              channels: [changeChannel],
              listener,
            });
      const opened = feed;
      watch = new NoticeWatch({
        channels: opened.probeChannels,
        publish: (channel, message) => publishOn(options.redis, channel, message, sharded),
        intervalMs: options.probeIntervalMs,
        // Off: whatever was cached may have missed a notice; definitions reload too (they keep their short TTL).
        onServing: (serving) => {
          answers.follow(serving);
          if (!serving) chainCache.invalidateAll();
        },
        onSilent: (channels) => opened.repair(channels),
        logger,
      });
      const started = watch;
      opened.onDown(() => started.down());
      // Probes prove a subscription over four intervals; a shorter gap (a slot's move) can lose a notice unseen.
      opened.onResubscribed((channels) => {
        answers.clear();
        chainCache.invalidateAll();
        // While serving is off (a closed connection, a silent channel) that outage was logged already.
        if (started.isServing) logger.info({ channels }, 'change notices subscribed again: cached answers dropped');
      });
      started.start();
    },
    close(): void {
      watch?.stop();
      feed?.close();
    },
  };
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
