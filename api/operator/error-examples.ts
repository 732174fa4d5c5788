import type { OpenAPIHono } from '@hono/zod-openapi';
import { SINGLE_BODY_LIMIT } from '../http/body-guard.js';

type OpenApiDocument = ReturnType<OpenAPIHono['getOpenAPI31Document']>;

interface ErrorExample {
  error: string;
  code: string;
  param?: string;
}

// One hand-written answer per error status, each as the service words it
// (api/auth, api/http/body-guard.ts, the validators). The error responses are
// shared by every operation (api/http/envelope.ts), so their examples are
// added here, per status, with the cases where an operation answers
// something more telling. openapi-examples.test.ts validates each against
// its response schema, so a renamed code breaks the build, not the reader.
const byStatus: Record<number, ErrorExample> = {
  400: { error: 'Request body is not valid JSON', code: 'invalid_json' },
  401: { error: 'X-API-Key and X-API-Secret headers are required', code: 'missing_credentials' },
  403: { error: 'Credential lacks the permission events:write', code: 'permission_missing' },
  404: { error: 'No route for GET /v1/unknown', code: 'not_found' },
  409: { error: 'The task is not completed yet', code: 'reward_not_claimable' },
  413: { error: `Request body exceeds ${SINGLE_BODY_LIMIT} bytes`, code: 'payload_too_large' },
  415: { error: 'Content-Type must be application/json', code: 'unsupported_media_type' },
  429: { error: 'Too many requests for this credential: at most 6000 per 60 s; retry after 12 s', code: 'rate_limited' },
  500: { error: 'The operation could not be completed', code: 'internal' },
  503: { error: 'The service is temporarily unavailable; try again', code: 'unavailable' },
};

const adminUnauthorized: ErrorExample = { error: 'Authorization: Bearer <ADMIN_TOKEN> required', code: 'missing_credentials' };
const pathUserTooLong: ErrorExample = {
  error: 'platformUserId: Too big: expected string to have <=255 characters',
  code: 'invalid_field',
  param: 'platformUserId',
};
const unknownProvider: ErrorExample = { error: 'No provider with this id', code: 'not_found' };
const unknownChain: ErrorExample = { error: 'No quest chain with this id', code: 'not_found' };
const badId: ErrorExample = { error: 'id: Invalid UUID', code: 'invalid_field', param: 'id' };
const unknownEndpoint: ErrorExample = { error: 'No such webhook endpoint', code: 'not_found', param: 'id' };

/** Where an operation's answer for a status says more than the status's generic example. */
const byOperation: Record<string, Partial<Record<number, ErrorExample>>> = {
  registerUser: {
    400: { error: 'country_code: must be an ISO 3166-1 alpha-2 code', code: 'invalid_field', param: 'country_code' },
    403: { error: 'Credential lacks the permission users:register', code: 'permission_missing' },
  },
  sendEvent: {
    400: { error: 'userId: unknown field; user_id: required', code: 'unknown_field', param: 'userId' },
  },
  sendEventBatch: {
    400: { error: 'events: Too big: expected array to have <=500 items', code: 'invalid_field', param: 'events' },
    413: { error: 'Request body exceeds 1048576 bytes', code: 'payload_too_large' },
  },
  getActiveQuestChains: {
    400: pathUserTooLong,
    403: { error: 'This operation is not open to your provider type', code: 'wrong_provider_type' },
  },
  startAccountLink: {
    400: { error: 'platform_user_id: no registered user with this id', code: 'user_not_registered', param: 'platform_user_id' },
    403: { error: 'Credential lacks the permission account_links:write', code: 'permission_missing' },
  },
  completeAccountLink: {
    400: { error: 'connection_token: expired', code: 'link_token_expired', param: 'connection_token' },
    409: {
      error: 'connection_token: already used to link another advertiser user id',
      code: 'link_token_used',
      param: 'connection_token',
    },
  },
  listAccountLinks: { 400: pathUserTooLong },
  claimReward: {
    400: { error: 'task_id: no task of your platform has this id', code: 'task_not_found', param: 'task_id' },
    403: { error: 'Credential lacks the permission rewards:claim', code: 'permission_missing' },
  },
  listRewards: { 400: pathUserTooLong, 403: { error: 'Credential is inactive', code: 'credential_inactive' } },
  createWebhookEndpoint: {
    400: { error: 'url: points at a private or loopback address (10.0.0.1)', code: 'webhook_url_refused', param: 'url' },
    403: { error: 'Credential lacks the permission webhooks:manage', code: 'permission_missing' },
  },
  listWebhookEndpoints: { 403: { error: 'Credential lacks the permission webhooks:manage', code: 'permission_missing' } },
  deleteWebhookEndpoint: { 400: badId, 404: unknownEndpoint },
  listWebhookMessages: {
    400: {
      error: 'status: Invalid option: expected one of "pending"|"delivered"|"failed"',
      code: 'invalid_field',
      param: 'status',
    },
    404: unknownEndpoint,
  },
  replayWebhookMessage: {
    400: { error: 'message_id: must be a message id (msg_ and 32 hex digits)', code: 'invalid_field', param: 'message_id' },
    404: { error: 'No such message of this endpoint', code: 'not_found', param: 'message_id' },
    503: { error: 'The delivery queue is unreachable; try again', code: 'unavailable' },
  },
  streamLiveUpdates: {
    400: {
      error: 'since: must be the baselineTimestamp of the read (ISO 8601 UTC, e.g. 2026-01-02T03:04:05.678Z) or null',
      code: 'invalid_field',
      param: 'since',
    },
    401: { error: 'token: missing, invalid or expired live token', code: 'invalid_live_token', param: 'token' },
    403: { error: 'token: the platform it was issued to is inactive', code: 'provider_inactive', param: 'token' },
    429: { error: 'Too many live streams: this user already has 10 open streams (close one first)', code: 'too_many_streams' },
    503: { error: 'Shutting down', code: 'unavailable' },
  },
  getReadiness: { 503: { error: 'Not ready: redis unreachable', code: 'unavailable' } },
  createProvider: {
    400: { error: 'type: Invalid option: expected one of "platform"|"advertiser"', code: 'invalid_field', param: 'type' },
    401: adminUnauthorized,
  },
  listProviders: { 401: adminUnauthorized },
  updateProvider: { 400: badId, 401: adminUnauthorized, 404: unknownProvider },
  createCredential: {
    400: { error: 'permissions: rewards:claim is not open to advertisers', code: 'invalid_field', param: 'permissions' },
    401: adminUnauthorized,
    404: unknownProvider,
  },
  listCredentials: { 400: badId, 401: adminUnauthorized, 404: unknownProvider },
  updateCredential: { 401: adminUnauthorized, 404: { error: 'No credential with this key', code: 'not_found' } },
  createQuestChain: {
    400: { error: 'end_date: must be after start_date', code: 'invalid_field', param: 'end_date' },
    401: adminUnauthorized,
  },
  listQuestChains: {
    400: { error: 'platform_id: Invalid UUID', code: 'invalid_field', param: 'platform_id' },
    401: adminUnauthorized,
  },
  getQuestChain: { 400: badId, 401: adminUnauthorized, 404: unknownChain },
  updateQuestChain: { 400: badId, 401: adminUnauthorized, 404: unknownChain },
};

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

/** Puts an example on every JSON error response of the document that has none. */
export function addErrorExamples(document: OpenApiDocument) {
  for (const item of Object.values(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const media = 'content' in response ? response.content?.['application/json'] : undefined;
        if (Number(status) < 400 || !media || media.example !== undefined) continue;
        const example = byOperation[operation.operationId ?? '']?.[Number(status)] ?? byStatus[Number(status)];
        if (example) media.example = { success: false, ...example };
      }
    }
  }
}
