import type { ServiceUserId } from '../domain/ids.js';

/**
 * The queues of a test that drives the matcher by hand: the producer records
 * the users whose evaluation a use-case enqueued (in `enqueued`, for the test
 * to run as the worker would) and webhooks deliver nothing. Typed by the
 * caller as its deps' producer and webhooks (shared/ does not know core/'s).
 */
export function recordingQueues<Producer, Webhooks>() {
  const enqueued: ServiceUserId[] = [];
  const producer = {
    enqueue: async (_name: string, payloads: { userId: ServiceUserId }[]) => {
      enqueued.push(...payloads.map((payload) => payload.userId));
      return true;
    },
    // Stored events stay pending for the test to match by hand (or not at all).
    enqueueEvents: async () => true,
  } as unknown as Producer;
  const webhooks = { deliver: async () => {} } as unknown as Webhooks;
  return { enqueued, producer, webhooks };
}
