import type { SSEStreamingApi } from 'hono/streaming';
import { findUserId, progressChangedSince } from '../../core/live/live-streams.js';
import { type ServiceUserId, senderUserId, serviceUserId } from '../../shared/domain/ids.js';
import type { ProgressMessage } from '../../shared/live/channel.js';
import type { LiveTokenScope } from '../../shared/live/token.js';
import type { Logger } from '../../shared/observability/logger.js';
import type { AppDeps } from '../app-env.js';
import { toProgressMessage, toReadyMessage } from '../routes/live/schema.js';
import type { LiveHub } from './hub.js';
import type { StreamTicket } from './stream-registry.js';

export interface LiveSessionInput {
  hub: LiveHub;
  db: AppDeps['db'];
  logger: Logger;
  scope: LiveTokenScope;
  /** The stream's place among the open ones (caps, revocation, shutdown); released when the session ends. */
  ticket: StreamTicket;
  /** The service user, resolved before the stream opened; null while not registered. */
  userId: ServiceUserId | null;
  /** Baseline of the client: undefined = none given, null = "never changed" (any recorded change is news). */
  since: bigint | null | undefined;
}

/**
 * One live stream (product rules §8) from `ready` to its end. The user's
 * channel is subscribed BEFORE progress_changed_at is compared with `since`,
 * so a change is never lost between the two (at worst it is reported twice,
 * which is harmless: clients refetch on `progress`). A user who is not yet
 * registered is waited for on their registration channel (no polling): the
 * stream subscribes to it, then looks once more in case the registration came
 * in between, once more when Redis confirms the subscription late (after the
 * stream stopped waiting for it), and again only if the subscriber connection
 * was lost meanwhile.
 * Once found, any change they already have is reported at once, since all of
 * it happened after connect. Ends when the client goes away, the hub closes
 * (API shutdown) or the provider stops serving live updates (revocation).
 */
export async function runLiveSession(stream: SSEStreamingApi, input: LiveSessionInput): Promise<void> {
  const { hub, logger, ticket } = input;
  let ended = false;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = () => {
      ended = true;
      resolve();
    };
  });
  stream.onAbort(() => finish());
  ticket.onEnd(() => finish());

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
  let following = false;
  const follow = async (userId: ServiceUserId, sinceUs: bigint | null | undefined): Promise<ProgressMessage | null> => {
    following = true;
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
  const startFollowing = async (userId: ServiceUserId) => {
    if (following || ended) return;
    // The user's channel first, then leave the registration channel: the
    // subscriber connection never drops to no channel in between.
    const catchUp = await follow(userId, input.since ?? null);
    stopWaiting();
    if (catchUp && !ended) sendProgress(catchUp);
  };
  const lookForUser = async () => {
    const userId = await findUserId(input, {
      platformId: input.scope.platformId,
      platformUserId: senderUserId(input.scope.platformUserId),
    });
    if (userId) await startFollowing(userId);
  };
  const logged = (work: Promise<void>) =>
    work.catch((error: unknown) => logger.warn({ err: error }, 'live stream user lookup failed'));

  let stopRegistration: (() => void) | undefined;
  let stopReconnect: (() => void) | undefined;
  function stopWaiting() {
    stopRegistration?.();
    stopReconnect?.();
  }

  let heartbeat: NodeJS.Timeout | undefined;
  try {
    const catchUp = input.userId ? await follow(input.userId, input.since) : null;
    if (!input.userId) {
      const waiting = await hub.awaitRegistration(input.scope, (userId) => void logged(startFollowing(serviceUserId(userId))));
      stopRegistration = waiting.stop;
      stopReconnect = hub.onReconnect(() => void logged(lookForUser()));
      // Redis confirmed the subscription after the wait: a registration before that sent its notice to nobody.
      void waiting.confirmedLate?.then(() => (following || ended ? undefined : logged(lookForUser())));
    }
    write(() => stream.writeSSE({ event: 'ready', data: JSON.stringify(toReadyMessage(input.userId !== null, input.scope)) }));
    if (catchUp) sendProgress(catchUp);
    heartbeat = setInterval(() => write(() => stream.write(': keep-alive\n\n')), hub.heartbeatMs);
    // Registered between the route's lookup and the subscription: found here, reported after `ready`.
    if (!input.userId && !ended) await logged(lookForUser());
    await finished;
  } catch (error) {
    logger.warn({ err: error }, 'live stream ended by an error');
  } finally {
    ended = true;
    clearInterval(heartbeat);
    stopWaiting();
    unsubscribe?.();
    ticket.release();
  }
}
