import { invalidInput } from '../../errors.js';
import { generateOpaqueToken, hashSecret } from '../../auth/secrets.js';
import type { Sql } from '../../db/client.js';
import { pgTimestampToMicros } from '../../db/timestamps.js';

/** How long a connection token may wait for the advertiser's OAuth callback. */
export const LINK_TOKEN_TTL_MINUTES = 15;

export interface StartedLink {
  connectionToken: string;
  expiresUs: bigint;
}

/**
 * Product rules §6.1: a platform asks for a single-use connection token for
 * one of its registered users and an active advertiser. Only the token's
 * SHA-256 is stored, so the database never holds a usable token.
 */
export async function startAccountLink(
  deps: { sql: Sql },
  platformId: string,
  input: { platform_user_id: string; advertiser_id: string },
): Promise<StartedLink> {
  const [found] = await deps.sql<{ user_id: string | null; advertiser_ok: boolean }[]>`
    select
      (select id from users where platform_id = ${platformId} and platform_user_id = ${input.platform_user_id}) as user_id,
      exists (select 1 from providers where id = ${input.advertiser_id} and type = 'advertiser' and status = 'active') as advertiser_ok`;
  if (!found?.user_id) throw invalidInput('platform_user_id: no registered user with this id');
  if (!found.advertiser_ok) throw invalidInput('advertiser_id: not an active advertiser');

  const connectionToken = generateOpaqueToken('lt');
  const [row] = await deps.sql<{ expires_at: string }[]>`
    insert into link_tokens (token_hash, user_id, platform_id, advertiser_id, expires_at)
    values (${hashSecret(connectionToken)}, ${found.user_id}, ${platformId}, ${input.advertiser_id},
            now() + make_interval(mins => ${LINK_TOKEN_TTL_MINUTES}))
    returning expires_at`;
  return { connectionToken, expiresUs: pgTimestampToMicros(row!.expires_at) };
}
