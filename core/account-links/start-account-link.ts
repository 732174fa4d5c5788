import { generateOpaqueToken, hashSecret } from '../../shared/auth/secrets.js';
import { findLinkParties, insertLinkToken } from '../../shared/db/link-store.js';
import type { SenderUserId } from '../../shared/domain/ids.js';
import { providerIdForMode } from '../../shared/domain/test-mode.js';
import { invalidInput } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';

/** How long a connection token may wait for the advertiser's OAuth callback. */
export const LINK_TOKEN_TTL_MINUTES = 15;

export interface StartAccountLinkInput {
  platformId: string;
  platformUserId: SenderUserId;
  /** As the caller knows it: the advertiser's own (live) id in both modes. */
  advertiserId: string;
  /** The caller's mode: a test platform links to the advertiser's test twin (docs/test-mode.md). */
  livemode: boolean;
}

export interface StartedLink {
  connectionToken: string;
  expiresUs: bigint;
}

/**
 * Product rules §6.1: a platform asks for a single-use connection token for
 * one of its registered users and an active advertiser. Only the token's
 * SHA-256 is stored, so the database never holds a usable token.
 */
export async function startAccountLink(deps: Pick<CoreDeps, 'db'>, input: StartAccountLinkInput): Promise<StartedLink> {
  const advertiserId = providerIdForMode(input.advertiserId, input.livemode);
  const parties = await findLinkParties(deps.db, {
    platformId: input.platformId,
    platformUserId: input.platformUserId,
    advertiserId,
  });
  if (!parties.userId)
    throw invalidInput('platform_user_id: no registered user with this id', 'platform_user_id', 'user_not_registered');
  if (!parties.advertiserActive)
    throw invalidInput('advertiser_id: not an active advertiser', 'advertiser_id', 'advertiser_not_active');

  const connectionToken = generateOpaqueToken('lt');
  const expiresUs = await insertLinkToken(deps.db, {
    tokenHash: hashSecret(connectionToken),
    userId: parties.userId,
    platformId: input.platformId,
    advertiserId,
    ttlMinutes: LINK_TOKEN_TTL_MINUTES,
  });
  return { connectionToken, expiresUs };
}
