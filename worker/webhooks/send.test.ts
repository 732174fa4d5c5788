import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signMessage } from '../../core/webhooks/signing.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../shared/testing/webhook-receiver.js';
import { createSender } from './send.js';

// The SSRF guard at delivery time (§10): whatever the URL was when the endpoint was created, the
// worker connects only to addresses its own lookup checked, so a host that now resolves to a
// loopback address (DNS rebinding) is refused, as are literal private addresses. The dev flag lifts it.

let hooks: WebhookReceiver;
beforeAll(async () => {
  hooks = await startWebhookReceiver();
});
afterAll(() => hooks.stop());

const signed = signMessage(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, {
  id: `msg_${'a'.repeat(32)}`,
  type: 'task.completed',
  created_at: '2026-01-01T00:00:00.000Z',
  livemode: true,
  data: {},
});

describe('delivery-time SSRF guard', () => {
  it.each([
    ['a hostname resolving to loopback', (port: number) => `http://localhost:${port}/hooks`],
    ['a literal IPv4 loopback', (port: number) => `http://127.0.0.1:${port}/hooks`],
    ['a literal IPv6 loopback', (port: number) => `http://[::1]:${port}/hooks`],
    ['a private address', () => 'http://10.0.0.1/hooks'],
  ])('refuses %s without connecting', async (_label, url) => {
    const sender = createSender({ allowPrivate: false });
    const before = hooks.received.length;
    const result = await sender.send(url(hooks.port), signed);
    sender.close();
    expect(result.ok).toBe(false);
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/private or loopback/);
    expect(hooks.received.length).toBe(before);
  });

  it('delivers to loopback when WEBHOOK_ALLOW_PRIVATE is set, and does not follow redirects', async () => {
    const sender = createSender({ allowPrivate: true });
    const delivered = await sender.send(`http://localhost:${hooks.port}/hooks`, signed);
    expect(delivered).toMatchObject({ ok: true, statusCode: 200, error: null });
    hooks.answer = () => 302;
    const redirected = await sender.send(hooks.url, signed);
    hooks.answer = () => 200;
    sender.close();
    expect(redirected).toMatchObject({ ok: false, statusCode: 302 });
    expect(redirected.error).toContain('redirects are not followed');
  });
});
