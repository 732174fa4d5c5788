import createClient from 'openapi-fetch';
import { QuestChainApiError } from './errors.js';
import { createRetryingFetch, type RetryOptions } from './retry.js';
import type { components, paths } from './schema.js';

export { QuestChainApiError, QuestChainNetworkError } from './errors.js';
export type { RetryOptions } from './retry.js';
export type { components, paths } from './schema.js';

type Schemas = components['schemas'];
type JsonBody<P extends keyof paths, M extends 'post'> = paths[P][M] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : never;

export interface QuestChainClientOptions {
  /** Service address without a trailing path, e.g. https://quests.example.com */
  baseUrl: string;
  apiKey: string;
  /** Keep it in your backend only; the client never logs it or puts it in an error. */
  apiSecret: string;
  retry?: RetryOptions;
  /** Replaces global fetch (a proxy agent, instrumentation); retries wrap it. */
  fetch?: typeof fetch;
}

/**
 * Typed client of the public /v1 API. Each method returns the `data` of the
 * success envelope or throws QuestChainApiError / QuestChainNetworkError.
 * 5xx and network failures are retried (see RetryOptions); 4xx never are.
 */
export function createQuestChainClient(options: QuestChainClientOptions) {
  const { baseUrl, apiKey, apiSecret } = options;
  if (!baseUrl || !apiKey || !apiSecret) throw new TypeError('createQuestChainClient: baseUrl, apiKey and apiSecret are required');
  // The secret lives only in this closure: not a property of anything returned, so it cannot be printed by accident.
  const api = createClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { 'X-API-Key': apiKey, 'X-API-Secret': apiSecret },
    fetch: createRetryingFetch(options.retry, options.fetch),
  });

  async function unwrap<T>(pending: Promise<{ data?: { data: T }; error?: unknown; response: Response }>): Promise<T> {
    const { data, error, response } = await pending;
    if (data !== undefined && response.ok) return data.data;
    const envelope = (typeof error === 'object' && error !== null ? error : {}) as { error?: unknown; code?: unknown };
    const detail = typeof envelope.error === 'string' ? envelope.error : response.statusText || 'request failed';
    const message = `${response.status} ${typeof envelope.code === 'string' ? `${envelope.code}: ` : ''}${detail}`;
    throw new QuestChainApiError(
      message.split(apiSecret).join('[redacted]'),
      response.status,
      typeof envelope.code === 'string' ? envelope.code : undefined,
      response.headers.get('x-request-id') ?? undefined,
    );
  }

  const description = `QuestChainClient(${baseUrl}, key ${apiKey})`;

  return {
    /** Creates the user for your platform or returns the existing one (`already_exists`). */
    registerUser: (body: Schemas['RegisterUser']) => unwrap(api.POST('/v1/users/register', { body })),
    /** Records one event; a repeat of (user_id, event_type, timestamp) answers `status: duplicate`. */
    sendEvent: (event: Schemas['EventInput']) => unwrap(api.POST('/v1/events', { body: event })),
    /** Records up to 500 events; `results[i]` answers item i (received, duplicate or rejected). */
    sendEvents: (events: Schemas['EventInput'][]) => unwrap(api.POST('/v1/events/batch', { body: { events } })),
    /** The user's active chains with task states and progress; an unknown user gets `user.exists: false`. */
    getActiveQuestChains: (platformUserId: string) =>
      unwrap(api.GET('/v1/quest-chains/active/{platformUserId}', { params: { path: { platformUserId } } })),
    startAccountLink: (body: JsonBody<'/v1/account-links', 'post'>) => unwrap(api.POST('/v1/account-links', { body })),
    completeAccountLink: (body: JsonBody<'/v1/account-links/complete', 'post'>) => unwrap(api.POST('/v1/account-links/complete', { body })),
    listAccountLinks: (platformUserId: string) =>
      unwrap(api.GET('/v1/account-links/{platformUserId}', { params: { path: { platformUserId } } })),
    claimReward: (body: JsonBody<'/v1/rewards/claim', 'post'>) => unwrap(api.POST('/v1/rewards/claim', { body })),
    getRewards: (platformUserId: string) => unwrap(api.GET('/v1/rewards/{platformUserId}', { params: { path: { platformUserId } } })),
    toString: () => description,
    [Symbol.for('nodejs.util.inspect.custom')]: () => description,
  };
}

export type QuestChainClient = ReturnType<typeof createQuestChainClient>;
