import type { Logger } from '../observability/logger.js';
import type { RedisClient } from '../queue/connection.js';
import type { ChangeNotices } from './change-notices.js';
import { type ChangeNotice, changesChannel, registrationChannel } from './channel.js';
import { publishOn } from './publish.js';

export interface ChangePublisherOptions {
  /** The connection notices go out on; a function when the process opens it only once something changes (the CLI). */
  redis: RedisClient | (() => Promise<RedisClient>);
  prefix: string;
  sharded: boolean;
  logger?: Logger;
  /** Where a notice that could not be published is reported (the CLI warns on stderr instead of logging). */
  onLost?: (notice: string, error: unknown) => void;
}

/**
 * The ChangeNotices of a process that caches nothing of what it changes (the
 * worker, the CLI): it only tells the API processes. Best effort: a notice
 * that does not go out is reported, and the APIs' caches then catch up by
 * their own limits (CHAIN_CACHE_TTL_MS for definitions; for answers, the
 * probes of api/read-cache/notice-watch.ts see no loss of a published notice,
 * so an unpublished claim or reset waits for ANSWER_CACHE_TTL_MS).
 */
export function createChangePublisher(options: ChangePublisherOptions): ChangeNotices & {
  /** Every cached answer may be out of date (channel.ts, kind `all`): what a starting worker tells the APIs. */
  allAnswersChanged(): Promise<void>;
} {
  const { prefix, sharded } = options;
  const redis = async () => (typeof options.redis === 'function' ? options.redis() : options.redis);
  const lost =
    options.onLost ??
    ((notice: string, error: unknown) => options.logger?.warn({ err: error, notice }, 'change notice not published'));
  const publish = async (channel: string, message: string, what: string) => {
    try {
      await publishOn(await redis(), channel, message, sharded);
    } catch (error) {
      lost(what, error);
    }
  };
  const announce = (notice: ChangeNotice) => publish(changesChannel(prefix, sharded), JSON.stringify(notice), notice.kind);
  return {
    chainsChanged: (platformId) => announce({ kind: 'chains', platformId }),
    answerChanged: (platformId, platformUserId) => announce({ kind: 'answer', platformId, platformUserId }),
    answersChanged: (platformId) => announce({ kind: 'answers', platformId }),
    allAnswersChanged: () => announce({ kind: 'all' }),
    userRegistered: (platformId, platformUserId, userId) =>
      publish(registrationChannel(prefix, platformId, platformUserId, sharded), userId, 'registration'),
  };
}
