import { findEndpoint } from '../../shared/db/webhook-endpoint-store.js';
import { messageExists } from '../../shared/db/webhook-message-store.js';
import { notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';

/**
 * Sends one of the caller's messages again now (same id), whatever its
 * status, through the delivery queue. Answers false when the queue is
 * unreachable: a replay is a request to act now, so it is refused rather
 * than deferred.
 */
export async function replayMessage(
  deps: Pick<CoreDeps, 'db' | 'webhooks'>,
  input: { providerId: string; endpointId: string; messageId: string },
): Promise<{ queued: boolean }> {
  if (!(await findEndpoint(deps.db, input.providerId, input.endpointId))) throw notFound('No such webhook endpoint', 'id');
  if (!(await messageExists(deps.db, input.endpointId, input.messageId))) throw notFound('No such message of this endpoint', 'message_id');
  return { queued: await deps.webhooks.replay(input.messageId) };
}
