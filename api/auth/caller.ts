import type { CredentialForAuth } from '../../shared/db/credential-store.js';
import type { ProviderType } from '../../shared/domain/permissions.js';

/**
 * The provider behind a request's verified credential. Authentication puts it
 * on the context as soon as the secret is verified, so everything after
 * (limits, authorization, the handler, the error handler) reads one value.
 */
export interface Caller {
  key: string;
  providerId: string;
  providerType: ProviderType;
  /**
   * False for a test credential, whose provider is a test twin (docs/test-mode.md).
   * Decided here alone, from the credential's row; every envelope's `livemode`
   * (api/http/livemode.ts) and every use-case input that maps twin ids read it.
   */
  livemode: boolean;
}

export const callerOf = (credential: CredentialForAuth): Caller => ({
  key: credential.key,
  providerId: credential.providerId,
  providerType: credential.providerType,
  livemode: credential.livemode,
});
