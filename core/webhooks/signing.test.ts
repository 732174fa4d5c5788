import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, signMessage } from './signing.js';

// Our signatures are the Standard Webhooks scheme's: the same as its own library computes, and
// accepted by its verifier (what docs/webhooks.md tells receivers to use).
describe('signMessage', () => {
  const message = {
    id: `msg_${'b'.repeat(32)}`,
    type: 'task.completed',
    created_at: '2026-01-02T03:04:05.678Z',
    livemode: true,
    data: { user: 'ü ✓ "quoted"', n: 1 },
  };

  it.each([1, 2, 3, 4, 5])('signs as the library does and passes its verification (secret %i)', () => {
    const secret = generateWebhookSecret();
    const now = new Date();
    const signed = signMessage(secret, message, now);
    expect(signed.headers['webhook-signature']).toBe(new Webhook(secret).sign(message.id, now, signed.body));
    expect(new Webhook(secret).verify(signed.body, signed.headers)).toEqual(message);
    expect(signed.headers).toMatchObject({
      'webhook-id': message.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'content-type': 'application/json',
    });
  });

  it('is refused under another secret', () => {
    const signed = signMessage(generateWebhookSecret(), message);
    expect(() => new Webhook(generateWebhookSecret()).verify(signed.body, signed.headers)).toThrow();
  });
});
