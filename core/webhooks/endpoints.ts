import {
  deleteEndpoint as deleteStored,
  insertEndpoint,
  listEndpoints as listStored,
  type WebhookEndpoint,
} from '../../shared/db/webhook-endpoint-store.js';
import type { ProviderType } from '../../shared/domain/permissions.js';
import { ADVERTISER_EVENT_TYPES, PLATFORM_EVENT_TYPES, type WebhookEventType } from '../../shared/domain/webhooks.js';
import { invalidInput, notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';
import { refuseWebhookUrl, type UrlPolicy } from './address-guard.js';
import { generateWebhookSecret } from './signing.js';

// A provider's webhook endpoints (§10): create, list, delete. Every verb is
// scoped to the caller's provider id: another provider's endpoint is unknown.

export type { WebhookEndpoint };

/** §10: at most this many endpoints per provider. */
const MAX_ENDPOINTS_PER_PROVIDER = 10;

export interface CreatedEndpoint {
  id: string;
  url: string;
  eventTypes: string[];
  /** Shown in this answer only. */
  secret: string;
  createdUs: bigint;
}

/** The types a provider of this kind may subscribe to: advertisers receive completions and their budget's news, platforms the rest. */
const eventTypesFor = (type: ProviderType): readonly WebhookEventType[] =>
  type === 'advertiser' ? ADVERTISER_EVENT_TYPES : PLATFORM_EVENT_TYPES;

/**
 * Product rules §10: a new endpoint with a fresh signing secret. The URL
 * passes the SSRF guard (scheme, then every address its host resolves to);
 * `eventTypes` defaults to every type the provider may receive.
 */
export async function createEndpoint(
  deps: Pick<CoreDeps, 'db'> & { urlPolicy: UrlPolicy },
  input: { providerId: string; providerType: ProviderType; url: string; eventTypes?: WebhookEventType[] | undefined },
): Promise<CreatedEndpoint> {
  const allowed = eventTypesFor(input.providerType);
  const eventTypes = input.eventTypes ? [...new Set(input.eventTypes)] : [...allowed];
  const refusedType = (input.eventTypes ?? []).findIndex((type) => !allowed.includes(type));
  if (refusedType >= 0) {
    const other = input.providerType === 'advertiser' ? 'platforms' : 'advertisers';
    throw invalidInput(`event_types: ${input.eventTypes![refusedType]} is sent to ${other} only`, `event_types.${refusedType}`);
  }
  const refusal = await refuseWebhookUrl(input.url, deps.urlPolicy);
  if (refusal) throw invalidInput(`url: ${refusal.reason}`, 'url', 'webhook_url_refused');
  const secret = generateWebhookSecret();
  const endpoint = await insertEndpoint(
    deps.db,
    { providerId: input.providerId, url: input.url, eventTypes, secret },
    MAX_ENDPOINTS_PER_PROVIDER,
  );
  if (!endpoint)
    throw invalidInput(
      `You have ${MAX_ENDPOINTS_PER_PROVIDER} webhook endpoints already; delete one first`,
      undefined,
      'webhook_endpoint_limit',
    );
  return { id: endpoint.id, url: endpoint.url, eventTypes: endpoint.eventTypes, secret, createdUs: endpoint.createdUs };
}

/** The caller's endpoints, oldest first, without secrets. */
export function listEndpoints(deps: Pick<CoreDeps, 'db'>, input: { providerId: string }): Promise<WebhookEndpoint[]> {
  return listStored(deps.db, input.providerId);
}

/** Deletes one of the caller's endpoints; nothing more is sent to it. */
export async function deleteEndpoint(
  deps: Pick<CoreDeps, 'db'>,
  input: { providerId: string; endpointId: string },
): Promise<{ id: string }> {
  if (!(await deleteStored(deps.db, input.providerId, input.endpointId))) throw notFound('No such webhook endpoint', 'id');
  return { id: input.endpointId };
}
