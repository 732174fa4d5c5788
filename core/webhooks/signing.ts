import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing: secrets are `whsec_` + base64 of 32 random bytes
 * (the scheme's format; §10 asks for at least 24), and a signature is `v1,` +
 * base64 HMAC-SHA256 of `id.timestamp.body` under the decoded secret. Signed
 * with node:crypto rather than the scheme's library, whose pure-JavaScript
 * SHA-256 is a real share of a delivery's CPU; signing.test.ts holds the two equal
 * and verifies our messages with the library.
 */
const SECRET_PREFIX = 'whsec_';

export const generateWebhookSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

/** What a receiver gets: the JSON body and the three signature headers. */
export interface WebhookMessageBody {
  id: string;
  type: string;
  created_at: string;
  /** False for a test provider's endpoint (docs/test-mode.md). */
  livemode: boolean;
  data: Record<string, unknown>;
}

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/** The body and headers of one delivery, signed now (a retry gets a fresh timestamp and signature, the same id and body). */
export function signMessage(secret: string, message: WebhookMessageBody, now: Date = new Date()): SignedRequest {
  const body = JSON.stringify(message);
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  const signature = `v1,${createHmac('sha256', key).update(`${message.id}.${timestamp}.${body}`).digest('base64')}`;
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': message.id,
      'webhook-timestamp': timestamp,
      'webhook-signature': signature,
    },
  };
}
