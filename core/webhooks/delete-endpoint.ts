import { deleteEndpoint as deleteStored } from '../../shared/db/webhook-endpoint-store.js';
import { notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';

/** Deletes one of the caller's endpoints; nothing more is sent to it. Another provider's id is as unknown (404). */
export async function deleteEndpoint(deps: Pick<CoreDeps, 'db'>, input: { providerId: string; endpointId: string }): Promise<{ id: string }> {
  if (!(await deleteStored(deps.db, input.providerId, input.endpointId))) throw notFound('No such webhook endpoint', 'id');
  return { id: input.endpointId };
}
