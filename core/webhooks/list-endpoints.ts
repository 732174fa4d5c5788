import { listEndpoints as listStored, type WebhookEndpoint } from '../../shared/db/webhook-endpoint-store.js';
import type { CoreDeps } from '../deps.js';

export type { WebhookEndpoint };

/** The caller's endpoints, oldest first, without secrets. */
export function listEndpoints(deps: Pick<CoreDeps, 'db'>, input: { providerId: string }): Promise<WebhookEndpoint[]> {
  return listStored(deps.db, input.providerId);
}
