import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Executor } from '../db/client.js';
import { ensureServiceSecret } from '../db/secret-store.js';

export const LIVE_TOKEN_TTL_MS = 60 * 60 * 1000;

export interface LiveTokenScope {
  platformId: string;
  platformUserId: string;
  /** The mode of the credential whose read issued the token (docs/test-mode.md); the stream's `ready` says it. */
  livemode: boolean;
}

/**
 * Live-update tokens: HMAC-signed, scoped to one platform user, valid one
 * hour. They grant nothing but the progress stream, so they may be handed to a browser.
 */
export class LiveTokenSigner {
  constructor(private readonly key: Buffer) {}

  issue(scope: LiveTokenScope, now = Date.now()): string {
    // `m: 0` only for test mode, so live tokens keep the shape they had before modes (and verify reads no `m` as live).
    const mode = scope.livemode ? {} : { m: 0 };
    const payload = Buffer.from(
      JSON.stringify({ p: scope.platformId, u: scope.platformUserId, exp: now + LIVE_TOKEN_TTL_MS, ...mode }),
    ).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  /** The scope of a valid, unexpired token; null for anything else. */
  verify(token: string, now = Date.now()): LiveTokenScope | null {
    const [payload, signature, extra] = token.split('.');
    if (!payload || !signature || extra !== undefined) return null;
    const expected = Buffer.from(this.sign(payload));
    const presented = Buffer.from(signature);
    if (expected.length !== presented.length || !timingSafeEqual(expected, presented)) return null;
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
        p?: unknown;
        u?: unknown;
        exp?: unknown;
        m?: unknown;
      };
      if (typeof claims.p !== 'string' || typeof claims.u !== 'string' || typeof claims.exp !== 'number') return null;
      if (claims.exp <= now) return null;
      return { platformId: claims.p, platformUserId: claims.u, livemode: claims.m !== 0 };
    } catch {
      return null;
    }
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}

const KEY_NAME = 'live_token_key';

/**
 * The signing key: LIVE_TOKEN_SECRET when configured, otherwise one the
 * service generates once and keeps in Postgres, so every API replica signs
 * and verifies alike with no configuration.
 */
export async function loadLiveTokenSigner(db: Executor, configured: string | undefined): Promise<LiveTokenSigner> {
  if (configured) return new LiveTokenSigner(Buffer.from(configured, 'utf8'));
  const key = await ensureServiceSecret(db, KEY_NAME, () => randomBytes(32).toString('base64url'));
  return new LiveTokenSigner(Buffer.from(key, 'base64url'));
}
