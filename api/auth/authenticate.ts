import type { MiddlewareHandler } from 'hono';
import { AppError } from '../http/errors.js';
import { secretMatches } from '../../shared/auth/secrets.js';
import { authorize, OPERATIONS, type OperationName } from '../../shared/domain/permissions.js';
import type { AppEnv } from '../app-env.js';

export type { Caller } from './caller.js';

const MAX_HEADER_LENGTH = 512;

const forbiddenMessages = {
  credential_inactive: 'Credential is inactive',
  provider_inactive: 'Provider is inactive',
  wrong_provider_type: 'This operation is not open to your provider type',
  permission_missing: 'Credential lacks the permission',
} as const;

/** Product rules §1: 401 for missing/unknown/wrong, then 403 inactive, provider type, permission. */
export function requireOperation(name: OperationName): MiddlewareHandler<AppEnv> {
  const operation = OPERATIONS[name];
  return async (c, next) => {
    const key = c.req.header('x-api-key');
    const secret = c.req.header('x-api-secret');
    if (!key || !secret) throw new AppError('missing_credentials', 'X-API-Key and X-API-Secret headers are required');
    if (key.length > MAX_HEADER_LENGTH || secret.length > MAX_HEADER_LENGTH) {
      throw new AppError('invalid_credentials', 'Invalid API key or secret');
    }
    const credential = await c.var.deps.credentials.find(key);
    if (!credential || !secretMatches(secret, credential.secretHash)) {
      throw new AppError('invalid_credentials', 'Invalid API key or secret');
    }
    const failure = authorize(credential, operation);
    if (failure) {
      const message = failure === 'permission_missing' ? `${forbiddenMessages.permission_missing} ${operation.permission}` : forbiddenMessages[failure];
      throw new AppError(failure, message);
    }
    c.set('caller', { key: credential.key, providerId: credential.providerId, providerType: credential.providerType });
    await next();
  };
}
