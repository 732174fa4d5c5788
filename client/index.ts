import createClient from 'openapi-fetch';
import { QuestChainApiError } from './errors.js';
import type { LiveUpdatesToken } from './live.js';
import { createRetryingFetch, parseRetryAfter, type RetryOptions } from './retry.js';
import type { components, paths } from './schema.js';

export { QuestChainApiError, type QuestChainErrorDetails, QuestChainNetworkError } from './errors.js';
export type {
  EventSourceConstructor,
  EventSourceLike,
  LiveProgress,
  LiveReady,
  LiveUpdates,
  LiveUpdatesOptions,
  LiveUpdatesToken,
} from './live.js';
export { LiveStreamError, liveUpdatesUrl, openLiveUpdates } from './live.js';
export type { RetryInfo, RetryOptions } from './retry.js';
export type { components, paths } from './schema.js';

type Schemas = components['schemas'];
type JsonBody<P extends keyof paths, M extends 'post'> = paths[P][M] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : never;

// The live helper is typed by hand (it must not pull the schema into browser bundles);
// this line stops the build if the served liveUpdates object stops fitting it.
type Fits<T extends LiveUpdatesToken> = T;
export type ActiveLiveUpdates = Fits<Schemas['ActiveQuestChains']['liveUpdates']>;

/** Per-call options, the last argument of every method. */
export interface CallOptions {
  /** Aborting rejects the call with the signal's reason (an `AbortError`), waits between retries included. */
  signal?: AbortSignal;
  /** Bound on the whole call, retries and their waits included; past it the call rejects with a `TimeoutError`. */
  timeoutMs?: number;
}

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
 * 429, 5xx and network failures are retried (see RetryOptions), after the
 * server's Retry-After on 429 and 503; other 4xx never are.
 */
export function createQuestChainClient(options: QuestChainClientOptions) {
  const { baseUrl, apiKey, apiSecret } = options;
  if (!baseUrl || !apiKey || !apiSecret)
    throw new TypeError('createQuestChainClient: baseUrl, apiKey and apiSecret are required');
  // The secret lives only in this closure: not a property of anything returned, so it cannot be printed by accident.
  const api = createClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { 'X-API-Key': apiKey, 'X-API-Secret': apiSecret },
    fetch: createRetryingFetch(options.retry, options.fetch),
  });

  async function unwrap<T>(pending: Promise<{ data?: { data: T }; error?: unknown; response: Response }>): Promise<T> {
    const { data, error, response } = await pending;
    if (data !== undefined && response.ok) return data.data;
    const envelope = (typeof error === 'object' && error !== null ? error : {}) as {
      error?: unknown;
      code?: unknown;
      param?: unknown;
      balance?: unknown;
    };
    const detail = typeof envelope.error === 'string' ? envelope.error : response.statusText || 'request failed';
    const message = `${response.status} ${typeof envelope.code === 'string' ? `${envelope.code}: ` : ''}${detail}`;
    throw new QuestChainApiError(
      message.split(apiSecret).join('[redacted]'),
      response.status,
      typeof envelope.code === 'string' ? envelope.code : undefined,
      response.headers.get('x-request-id') ?? undefined,
      parseRetryAfter(response.headers.get('retry-after')),
      {
        ...(typeof envelope.param === 'string' ? { param: envelope.param } : {}),
        ...(typeof envelope.balance === 'number' ? { balance: envelope.balance } : {}),
      },
    );
  }

  /** The fetch options of one call: its signal, joined with its time limit. */
  function init(call: CallOptions | undefined): { signal?: AbortSignal } {
    const signals = [call?.signal, call?.timeoutMs === undefined ? undefined : AbortSignal.timeout(call.timeoutMs)].filter(
      (signal): signal is AbortSignal => signal !== undefined,
    );
    return signals.length === 0 ? {} : { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) };
  }

  const description = `QuestChainClient(${baseUrl}, key ${apiKey})`;

  return {
    /** Creates the user for your platform or returns the existing one (`already_exists`). */
    registerUser: (body: Schemas['RegisterUser'], call?: CallOptions) =>
      unwrap(api.POST('/v1/users/register', { body, ...init(call) })),
    /** Records one event; a repeat of (user_id, event_type, timestamp) answers `status: duplicate`. */
    sendEvent: (event: Schemas['EventInput'], call?: CallOptions) =>
      unwrap(api.POST('/v1/events', { body: event, ...init(call) })),
    /** Records up to 500 events; `results[i]` answers item i (received, duplicate or rejected). */
    sendEvents: (events: Schemas['EventInput'][], call?: CallOptions) =>
      unwrap(api.POST('/v1/events/batch', { body: { events }, ...init(call) })),
    /** Reverses one of your events (a refund): it stops counting; idempotent (`already_reversed`). 404 for an event not yours. */
    reverseEvent: (eventId: string, body: Schemas['EventReversal'] = {}, call?: CallOptions) =>
      unwrap(api.POST('/v1/events/{event_id}/reverse', { params: { path: { event_id: eventId } }, body, ...init(call) })),
    /** Reverses up to 500 of your events; `results[i]` answers item i (reversed, or rejected as not found). */
    reverseEvents: (events: JsonBody<'/v1/events/reverse', 'post'>['events'], call?: CallOptions) =>
      unwrap(api.POST('/v1/events/reverse', { body: { events }, ...init(call) })),
    /** The user's active chains with task states and progress; an unknown user gets `user.exists: false`. */
    getActiveQuestChains: (platformUserId: string, call?: CallOptions) =>
      unwrap(api.GET('/v1/quest-chains/active/{platformUserId}', { params: { path: { platformUserId } }, ...init(call) })),
    startAccountLink: (body: JsonBody<'/v1/account-links', 'post'>, call?: CallOptions) =>
      unwrap(api.POST('/v1/account-links', { body, ...init(call) })),
    completeAccountLink: (body: JsonBody<'/v1/account-links/complete', 'post'>, call?: CallOptions) =>
      unwrap(api.POST('/v1/account-links/complete', { body, ...init(call) })),
    listAccountLinks: (platformUserId: string, call?: CallOptions) =>
      unwrap(api.GET('/v1/account-links/{platformUserId}', { params: { path: { platformUserId } }, ...init(call) })),
    claimReward: (body: JsonBody<'/v1/rewards/claim', 'post'>, call?: CallOptions) =>
      unwrap(api.POST('/v1/rewards/claim', { body, ...init(call) })),
    getRewards: (platformUserId: string, call?: CallOptions) =>
      unwrap(api.GET('/v1/rewards/{platformUserId}', { params: { path: { platformUserId } }, ...init(call) })),
    /** The user's points: balance, earned, spent, reversed and the ledger newest first (`limit`, `starting_after` = `next_cursor`). */
    getPoints: (platformUserId: string, page: { limit?: number; starting_after?: string } = {}, call?: CallOptions) =>
      unwrap(api.GET('/v1/users/{platformUserId}/points', { params: { path: { platformUserId }, query: page }, ...init(call) })),
    /**
     * Spends the user's points once per `idempotency_key` (a repeat answers the first spend, `already_spent`);
     * 409 `insufficient_points` when the balance does not cover it, `idempotency_key_reused` for another amount.
     */
    spendPoints: (platformUserId: string, body: Schemas['SpendPoints'], call?: CallOptions) =>
      unwrap(api.POST('/v1/users/{platformUserId}/points/spend', { params: { path: { platformUserId } }, body, ...init(call) })),
    listLeaderboards: (query: { limit?: number; starting_after?: string } = {}, call?: CallOptions) =>
      unwrap(api.GET('/v1/leaderboards', { params: { query }, ...init(call) })),
    /** A period's standings: the top `limit`, or around a user (`around`), of the current period unless `period_start` names one. */
    getLeaderboard: (id: string, query: { limit?: number; around?: string; period_start?: string } = {}, call?: CallOptions) =>
      unwrap(api.GET('/v1/leaderboards/{id}', { params: { path: { id }, query }, ...init(call) })),
    toString: () => description,
    [Symbol.for('nodejs.util.inspect.custom')]: () => description,
  };
}

export type QuestChainClient = ReturnType<typeof createQuestChainClient>;
