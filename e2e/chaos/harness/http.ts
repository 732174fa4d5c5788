import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export type Answer =
  | { status: number; headers: IncomingHttpHeaders; json: any; ms: number }
  /** No answer: refused, reset, or timed out. The client cannot know whether the server acted on it. */
  | { status: 0; error: string; ms: number };

export interface HttpClient {
  call(
    method: string,
    path: string,
    options?: { headers?: Record<string, string>; body?: unknown; timeoutMs?: number },
  ): Promise<Answer>;
  close(): void;
}

/**
 * A keep-alive HTTP client on node:http (the suite's own, so it can send
 * from a chosen local address: a flood from 127.0.0.2 is another client to
 * per-address limits, as an attacker's would be). `baseUrl` is read on every
 * call, so a restarted API on a new port is followed.
 */
export function httpClient(baseUrl: () => string, options: { maxSockets?: number; localAddress?: string } = {}): HttpClient {
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64 });
  return {
    call(method, path, { headers = {}, body, timeoutMs = 10_000 } = {}) {
      const started = performance.now();
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      return new Promise<Answer>((resolve) => {
        const done = (answer: Answer) => resolve(answer);
        const url = new URL(path, baseUrl());
        const outgoing = httpRequest(
          url,
          {
            method,
            agent,
            ...(options.localAddress ? { localAddress: options.localAddress } : {}),
            headers: {
              ...(payload === undefined
                ? {}
                : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
              ...headers,
            },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('error', (error) => done({ status: 0, error: error.message, ms: performance.now() - started }));
            response.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              let json: unknown;
              try {
                json = text ? JSON.parse(text) : undefined;
              } catch {
                json = text;
              }
              done({ status: response.statusCode ?? 0, headers: response.headers, json, ms: performance.now() - started });
            });
          },
        );
        outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
        outgoing.on('error', (error) => done({ status: 0, error: error.message, ms: performance.now() - started }));
        outgoing.end(payload);
      });
    },
    close: () => agent.destroy(),
  };
}

/** The q-quantile (0..1) of `values` (sorted copy), NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** The published error envelope: `success: false` and a message. */
export function isErrorEnvelope(body: unknown): boolean {
  try {
    const parsed = (typeof body === 'string' ? JSON.parse(body) : body) as { success?: unknown; error?: unknown } | undefined;
    return parsed?.success === false && typeof parsed.error === 'string';
  } catch {
    return false;
  }
}
