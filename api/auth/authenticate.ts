import type { MiddlewareHandler } from 'hono';
import { AppError } from '../http/errors.js';
import { verifySecret } from '../../shared/auth/secrets.js';
import { authorize, OPERATIONS, type OperationName } from '../../shared/domain/permissions.js';
import type { AppEnv } from '../app-env.js';
import { clientAddress } from './client-address.js';

export type { Caller } from './caller.js';

const MAX_HEADER_LENGTH = 512;

const forbiddenMessages = {
  credential_inactive: 'Credential is inactive',
  provider_inactive: 'Provider is inactive',
  wrong_provider_type: 'This operation is not open to your provider type',
  permission_missing: 'Credential lacks the permission',
} as const;

/**
 * Product rules §1: 401 for missing/unknown/wrong, then 403 inactive, provider
 * type, permission. Around it, the limits of docs/operations.md: an address
 * past its failed-authentication quota is refused (429) before anything else,
 * and an authenticated credential past its request quota right after.
 */
export function requireOperation(name: OperationName): MiddlewareHandler<AppEnv> {
  const operation = OPERATIONS[name];
  return async (c, next) => {
    const limits = c.var.deps.rateLimits;
    const address = limits.authFailures ? clientAddress(c, limits.trustedProxies) : '';
    const blocked = await limits.authFailures?.refusalLate(c, address);
    if (blocked) throw blocked;
    const fail = async (code: 'missing_credentials' | 'invalid_credentials', message: string): Promise<never> => {
      throw (await limits.authFailures?.record(c, address)) ?? new AppError(code, message);
    };

    const key = c.req.header('x-api-key');
    const secret = c.req.header('x-api-secret');
    if (!key || !secret) return fail('missing_credentials', 'X-API-Key and X-API-Secret headers are required');
    if (key.length > MAX_HEADER_LENGTH || secret.length > MAX_HEADER_LENGTH) return fail('invalid_credentials', 'Invalid API key or secret');
    const credential = await c.var.deps.credentials.find(key);
    // Verified whether or not the key exists (against a dummy hash if not): the time taken tells nothing.
    const secretValid = verifySecret(secret, credential?.secretHash);
    if (!credential || !secretValid) return fail('invalid_credentials', 'Invalid API key or secret');
    const admitted = limits.credentials?.admit(c, credential.key);
    const limited = admitted instanceof Promise ? await admitted : admitted;
    if (limited) throw limited;
    const failure = authorize(credential, operation);
    if (failure) {
      const message = failure === 'permission_missing' ? `${forbiddenMessages.permission_missing} ${operation.permission}` : forbiddenMessages[failure];
      throw new AppError(failure, message);
    }
    c.set('caller', { key: credential.key, providerId: credential.providerId, providerType: credential.providerType, livemode: credential.livemode });
    await next();
  };
}
