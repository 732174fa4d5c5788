import type { SSEStreamingApi } from 'hono/streaming';
import type { ProgressMessage } from '../../shared/live/channel.js';
import type { LiveTokenScope } from '../../shared/live/token.js';
import type { Logger } from '../../shared/observability/logger.js';
import type { AppDeps } from '../app-env.js';
import { toProgressMessage } from '../routes/live/schema.js';
import { progressChangedSince } from '../use-cases/live/progress-changed-since.js';
import { findUserId } from '../use-cases/users/find-user-id.js';
import type { LiveHub } from './hub.js';

export interface LiveSessionInput {
  hub: LiveHub;
  db: AppDeps['db'];
  logger: Logger;
  scope: LiveTokenScope;
  /** The service user, resolved before the stream opened; null while not registered. */
  userId: string | null;
  /** Baseline of the client: undefined = none given, null = "never changed" (any recorded change is news). */
  since: bigint | null | undefined;
}

/**
 * One live stream (product rules §8) from `ready` to its end. The user's
 * channel is subscribed BEFORE progress_changed_at is compared with `since`,
 * so a change is never lost between the two (at worst it is reported twice,
 * which is harmless: clients refetch on `progress`). A user who is not yet
 * registered is looked up again every `hub.userPollMs`; once found, any change
 * they already have is reported at once, since all of it happened after connect.
 * Ends when the client goes away or the hub closes (API shutdown).
 */
export async function runLiveSession(stream: SSEStreamingApi, input: LiveSessionInput): Promise<void> {
  const { hub, logger } = input;
  let ended = false;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = () => {
      ended = true;
      resolve();
    };
  });
  stream.onAbort(() => finish());
  const detach = hub.attach(() => finish());

  // Frames are written one after another so concurrent sources never interleave bytes.
  let writing: Promise<void> = Promise.resolve();
  const write = (frame: () => Promise<unknown>) => {
    writing = writing.then(frame).then(
      () => undefined,
      () => finish(),
    );
  };
  const sendProgress = (message: ProgressMessage) =>
    write(() => stream.writeSSE({ event: 'progress', data: JSON.stringify(message), id: message.changed_at }));

  let unsubscribe: (() => void) | undefined;
  const follow = async (userId: string, sinceUs: bigint | null | undefined): Promise<ProgressMessage | null> => {
    const stop = await hub.subscribe(userId, sendProgress);
    if (ended) {
      stop();
      return null;
    }
    unsubscribe = stop;
    if (sinceUs === undefined) return null;
    const change = await progressChangedSince(input, { userId, sinceUs });
    return change && toProgressMessage(change);
  };

  let heartbeat: NodeJS.Timeout | undefined;
  let poll: NodeJS.Timeout | undefined;
  try {
    const catchUp = input.userId ? await follow(input.userId, input.since) : null;
    write(() => stream.writeSSE({ event: 'ready', data: JSON.stringify({ user_exists: input.userId !== null }) }));
    if (catchUp) sendProgress(catchUp);
    heartbeat = setInterval(() => write(() => stream.write(': keep-alive\n\n')), hub.heartbeatMs);
    if (!input.userId) {
      let looking = false;
      poll = setInterval(() => {
        if (looking || ended) return;
        looking = true;
        void lookForUser()
          .catch((error: unknown) => logger.warn({ err: error }, 'live stream user lookup failed'))
          .finally(() => (looking = false));
      }, hub.userPollMs);
    }
    await finished;
  } catch (error) {
    logger.warn({ err: error }, 'live stream ended by an error');
  } finally {
    ended = true;
    clearInterval(heartbeat);
    clearInterval(poll);
    unsubscribe?.();
    detach();
  }

  async function lookForUser() {
    const userId = await findUserId(input, { platformId: input.scope.platformId, platformUserId: input.scope.platformUserId });
    if (!userId || ended) return;
    clearInterval(poll);
    const catchUp = await follow(userId, input.since ?? null);
    if (catchUp && !ended) sendProgress(catchUp);
  }
}
