import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks signing through the scheme's own library: `whsec_` +
 * base64 of 32 random bytes (the scheme's format; §10 asks for at least 24).
 */
export const generateWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

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
  const signature = new Webhook(secret).sign(message.id, now, body);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': message.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signature,
    },
  };
}
