import type { Executor } from '../../shared/db/client.js';
import type { WebhookMessageStatus } from '../../shared/db/schema/index.js';
import { findEndpoint } from '../../shared/db/webhook-endpoint-store.js';
import { listMessages as listStored, messageExists, type WebhookMessageView } from '../../shared/db/webhook-message-store.js';
import { notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';
import { type Page, type PageRequest, pageOrRefuse } from '../page.js';

// The messages of one of the caller's endpoints: read them, send one again.

export type { WebhookMessageView };

/** Another provider's endpoint is as unknown as a missing one (404). */
async function refuseUnknownEndpoint(db: Executor, input: { providerId: string; endpointId: string }): Promise<void> {
  if (!(await findEndpoint(db, input.providerId, input.endpointId))) throw notFound('No such webhook endpoint', 'id');
}

/** A page of one of the caller's endpoints' messages, newest first, each with its attempts. */
export async function listMessages(
  deps: Pick<CoreDeps, 'db'>,
  input: { providerId: string; endpointId: string; status?: WebhookMessageStatus | undefined; page: PageRequest },
): Promise<Page<WebhookMessageView>> {
  await refuseUnknownEndpoint(deps.db, input);
  return pageOrRefuse(await listStored(deps.db, input.endpointId, { status: input.status }, input.page), input.page);
}

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
  await refuseUnknownEndpoint(deps.db, input);
  if (!(await messageExists(deps.db, input.endpointId, input.messageId)))
    throw notFound('No such message of this endpoint', 'message_id');
  return { queued: await deps.webhooks.replay(input.messageId) };
}
