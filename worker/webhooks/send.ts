import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { guardedLookup, isPrivateAddress, literalAddress } from '../../core/webhooks/address-guard.js';
import type { SignedRequest } from '../../core/webhooks/signing.js';

/** §10: any 2xx within this long is success; anything else, or nothing, is a failed attempt. */
export const DELIVERY_TIMEOUT_MS = 10_000;

export interface AttemptResult {
  /** The HTTP status, null when no answer came (refused, timed out, connection error). */
  statusCode: number | null;
  /** Why it failed, null on success; never the response body (it is the receiver's, and unbounded). */
  error: string | null;
  durationMs: number;
  ok: boolean;
}

export interface Sender {
  send(url: string, request: SignedRequest): Promise<AttemptResult>;
  close(): void;
}

/**
 * POSTs signed messages. Kept-alive agents carry the connections between
 * deliveries; their DNS lookup is the SSRF guard's (address-guard.ts), so the
 * address connected to is the address checked. Redirects are never followed
 * (node:http does not follow them): a 3xx is a failed attempt.
 */
export function createSender(options: { allowPrivate: boolean }): Sender {
  const lookup = guardedLookup(options.allowPrivate);
  const agents = {
    http: new HttpAgent({ keepAlive: true, maxSockets: 64, lookup } as never),
    https: new HttpsAgent({ keepAlive: true, maxSockets: 64, lookup } as never),
  };

  function send(url: string, signed: SignedRequest): Promise<AttemptResult> {
    const started = performance.now();
    const done = (statusCode: number | null, error: string | null): AttemptResult => ({
      statusCode,
      error,
      durationMs: Math.round(performance.now() - started),
      ok: error === null && statusCode !== null && statusCode >= 200 && statusCode < 300,
    });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve(done(null, 'invalid URL'));
    }
    // A literal address never goes through `lookup`: check it here.
    const literal = literalAddress(target.hostname);
    if (!options.allowPrivate && literal !== null && isPrivateAddress(literal))
      return Promise.resolve(done(null, `refused: ${literal} is a private or loopback address`));
    const isHttps = target.protocol === 'https:';
    return new Promise((resolve) => {
      const request = (isHttps ? httpsRequest : httpRequest)(
        target,
        {
          method: 'POST',
          agent: isHttps ? agents.https : agents.http,
          lookup,
          headers: {
            ...signed.headers,
            'content-length': String(Buffer.byteLength(signed.body)),
            'user-agent': 'quest-chains-webhooks/1',
          },
          timeout: DELIVERY_TIMEOUT_MS,
        },
        (response: IncomingMessage) => {
          // Drain and drop the body: only the status counts, and the socket goes back to the pool.
          response.resume();
          response.once('end', () => resolve(done(response.statusCode ?? null, statusError(response.statusCode))));
          response.once('error', (error) => resolve(done(response.statusCode ?? null, error.message)));
        },
      );
      // The whole exchange, not only an idle socket, must end within the limit.
      const deadline = setTimeout(
        () => request.destroy(new Error(`no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`)),
        DELIVERY_TIMEOUT_MS,
      );
      request.once('timeout', () => request.destroy(new Error(`no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`)));
      request.once('error', (error) => resolve(done(null, error.message)));
      // Whatever ended the exchange, the attempt gets an outcome (a later resolve is ignored).
      request.once('close', () => {
        clearTimeout(deadline);
        resolve(done(null, 'connection closed before an answer'));
      });
      request.end(signed.body);
    });
  }

  return {
    send,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

function statusError(status: number | undefined): string | null {
  if (status === undefined) return 'no status';
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) return `HTTP ${status} (redirects are not followed)`;
  return `HTTP ${status}`;
}
