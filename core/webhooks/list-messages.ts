import { findEndpoint } from '../../shared/db/webhook-endpoint-store.js';
import { listMessages as listStored, type WebhookMessageView } from '../../shared/db/webhook-message-store.js';
import type { WebhookMessageStatus } from '../../shared/db/schema/index.js';
import { notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';
import { pageOrRefuse, type Page, type PageRequest } from '../page.js';

export type { WebhookMessageView };

/** A page of one of the caller's endpoints' messages, newest first, each with its attempts. */
export async function listMessages(
  deps: Pick<CoreDeps, 'db'>,
  input: { providerId: string; endpointId: string; status?: WebhookMessageStatus | undefined; page: PageRequest },
): Promise<Page<WebhookMessageView>> {
  if (!(await findEndpoint(deps.db, input.providerId, input.endpointId))) throw notFound('No such webhook endpoint', 'id');
  return pageOrRefuse(await listStored(deps.db, input.endpointId, { status: input.status }, input.page), input.page);
}
