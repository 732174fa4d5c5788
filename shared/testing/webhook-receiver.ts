import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  json: { id: string; type: string; created_at: string; livemode: boolean; data: Record<string, unknown> };
  /** The status this receiver answered. */
  answered: number;
  atMs: number;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** Decides each answer; default 200 at once. `seen` counts earlier requests with the same webhook-id. */
  answer: (request: { id: string; seen: number }) => number;
  /** Stops listening (a receiver that is down: connections refused). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

/**
 * A local HTTP receiver for webhook tests and the bench: records every
 * request (headers and raw body, for signature checks) and answers what
 * `answer` says.
 */
export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
  let server: Server | undefined;
  const seen = new Map<string, number>();
  const receiver: WebhookReceiver = {
    url: '',
    port,
    received: [],
    answer: () => 200,
    async stop() {
      const running = server;
      server = undefined;
      if (!running) return;
      running.closeAllConnections();
      await new Promise<void>((resolve) => running.close(() => resolve()));
    },
    async start() {
      server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          const id = String(request.headers['webhook-id'] ?? '');
          const count = seen.get(id) ?? 0;
          seen.set(id, count + 1);
          const status = receiver.answer({ id, seen: count });
          receiver.received.push({ headers: request.headers, body, json: JSON.parse(body), answered: status, atMs: Date.now() });
          response.writeHead(status).end();
        });
      });
      await new Promise<void>((resolve) => server!.listen(receiver.port, '127.0.0.1', resolve));
      receiver.port = (server.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
    },
  };
  await receiver.start();
  return receiver;
}
