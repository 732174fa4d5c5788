import type { Context, MiddlewareHandler, Next } from 'hono';
import type { CredentialForAuth } from '../../shared/db/credential-store.js';
import { authorize, OPERATIONS, type Operation, type OperationName } from '../../shared/domain/permissions.js';
import type { AppEnv } from '../app-env.js';
import { AppError } from '../http/errors.js';
import { requestHeader } from '../http/request-headers.js';
import { callerOf } from './caller.js';
import { clientAddress } from './client-address.js';
import type { FailureLimiter } from './failure-limiter.js';

const MAX_HEADER_LENGTH = 512;

const forbiddenMessages = {
  credential_inactive: 'Credential is inactive',
  provider_inactive: 'Provider is inactive',
  wrong_provider_type: 'This operation is not open to your provider type',
  permission_missing: 'Credential lacks the permission',
} as const;

// A live credential on a test-only operation: a script pointed at the wrong key fails loudly.
const testModeOnlyMessage = (c: Context) =>
  `${c.req.method} ${c.req.path} needs a test credential (pk_test_…); live data is never reset`;

/**
 * Product rules §1: 401 for missing/unknown/wrong, then 403 inactive, provider
 * type, permission, then a test-only operation refusing a live credential
 * (docs/test-mode.md). Around it, the limits of docs/operations.md: an address
 * past its failed-authentication quota is refused (429) before anything else,
 * and an authenticated credential past its request quota right after.
 *
 * Synchronous up to `next()` on the hot path (credential cached, address not
 * blocked, quota counted locally): no promise of its own per request. It
 * waits only where there is something to wait for: a tarpit, a credential
 * lookup, a failure to count, a quota to ask Redis about.
 */
export function requireOperation(name: OperationName): MiddlewareHandler<AppEnv> {
  const operation = OPERATIONS[name];
  return (c, next) => {
    const deps = c.get('deps');
    const limits = deps.rateLimits;
    const address = limits.authFailures ? clientAddress(c, limits.trustedProxies) : '';
    if (limits.authFailures?.refusal(c, address)) return refuseLate(c, next, operation, limits.authFailures, address);
    return authenticate(c, next, operation, address);
  };
}

function authenticate(c: Context<AppEnv>, next: Next, operation: Operation, address: string): Promise<void> {
  const deps = c.get('deps');
  const key = requestHeader(c, 'x-api-key');
  const secret = requestHeader(c, 'x-api-secret');
  if (!key || !secret) return fail(c, address, 'missing_credentials', 'X-API-Key and X-API-Secret headers are required');
  if (key.length > MAX_HEADER_LENGTH || secret.length > MAX_HEADER_LENGTH)
    return fail(c, address, 'invalid_credentials', 'Invalid API key or secret');
  const cached = deps.credentials.cached(key);
  if (cached === undefined)
    return deps.credentials.find(key).then((credential) => admit(c, next, operation, address, secret, credential));
  return admit(c, next, operation, address, secret, cached);
}

function admit(
  c: Context<AppEnv>,
  next: Next,
  operation: Operation,
  address: string,
  secret: string,
  credential: CredentialForAuth | null,
): Promise<void> {
  const { credentials, rateLimits } = c.get('deps');
  // Verified whether or not the key exists (against a dummy hash if not): the time taken tells nothing.
  if (!credentials.secretValid(secret, credential) || !credential)
    return fail(c, address, 'invalid_credentials', 'Invalid API key or secret');
  // Known from here on: every answer, a refusal below included, says the credential's mode.
  c.set('caller', callerOf(credential));
  const admitted = rateLimits.credentials?.admit(c, credential.key) ?? null;
  if (admitted instanceof Promise)
    return admitted.then((limited) => (limited ? Promise.reject(limited) : authorized(c, next, operation, credential)));
  if (admitted) throw admitted;
  return authorized(c, next, operation, credential);
}

function authorized(c: Context<AppEnv>, next: Next, operation: Operation, credential: CredentialForAuth): Promise<void> {
  const failure = authorize(credential, operation);
  if (failure === 'test_mode_only') throw new AppError(failure, testModeOnlyMessage(c));
  if (failure) {
    const message =
      failure === 'permission_missing'
        ? `${forbiddenMessages.permission_missing} ${operation.permission}`
        : forbiddenMessages[failure];
    throw new AppError(failure, message);
  }
  return next();
}

async function refuseLate(
  c: Context<AppEnv>,
  next: Next,
  operation: Operation,
  limiter: FailureLimiter,
  address: string,
): Promise<void> {
  const refused = await limiter.refusalLate(c, address);
  if (refused) throw refused;
  // The block ended during the tarpit: authenticate as usual.
  return authenticate(c, next, operation, address);
}

async function fail(
  c: Context<AppEnv>,
  address: string,
  code: 'missing_credentials' | 'invalid_credentials',
  message: string,
): Promise<never> {
  throw (await c.get('deps').rateLimits.authFailures?.record(c, address)) ?? new AppError(code, message);
}
