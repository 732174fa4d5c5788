import type { ProviderType } from '../../shared/domain/permissions.js';

/** The authenticated provider of a request (set by `requireOperation`, read by handlers). */
export interface Caller {
  key: string;
  providerId: string;
  providerType: ProviderType;
  /** False for a test credential, whose provider is a test twin (docs/test-mode.md). */
  livemode: boolean;
}
