import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the scripted server answers to its nth request (1-based); `hang` keeps the request open until the client gives up. */
export type ScriptedAnswer = number | { status: number; headers?: Record<string, string> } | 'hang';

/**
 * A real HTTP server answering from a script, for the client's retry rules:
 * it records each request, its body and the time it arrived.
 */
export function scriptedServer(answerFor: (hit: number) => ScriptedAnswer) {
  const received: IncomingMessage[] = [];
  const bodies: string[] = [];
  const arrivals: number[] = [];
  const server: Server = createServer((request, response) => {
    received.push(request);
    arrivals.push(performance.now());
    const hit = received.length;
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      bodies.push(body);
      const answer = answerFor(hit);
      if (answer === 'hang') return;
      const { status, headers = {} } = typeof answer === 'number' ? { status: answer } : answer;
      const envelope =
        status === 200
          ? {
              success: true,
              data: {
                user_id: '0b0c5d4e-0000-4000-8000-000000000001',
                platform_user_id: 'u',
                created_at: '2026-01-01T00:00:00.000Z',
                already_exists: false,
              },
            }
          : { success: false, error: `scripted ${status}`, code: status >= 500 ? 'internal' : 'bad_request' };
      response.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req-${hit}`, ...headers });
      response.end(JSON.stringify(envelope));
    });
  });
  return {
    received,
    bodies,
    arrivals,
    async start() {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
