import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { apiServerOptions } from '../http/api-response.js';

export interface ListeningApp {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves an app on a real socket (port 0), for the tests where the wire
 * matters: app.request() never touches a socket, so it cannot show whether a
 * 413 or 401 reaches a client that is still sending its body.
 */
export async function listen(app: { fetch: (request: Request) => Response | Promise<Response> }): Promise<ListeningApp> {
  return new Promise((resolve) => {
    const server = serve(
      { fetch: app.fetch, port: 0, hostname: '127.0.0.1', serverOptions: apiServerOptions },
      (info: AddressInfo) => {
        resolve({
          url: `http://127.0.0.1:${info.port}`,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done());
              // Keep-alive sockets of the test's fetch client would hold close() open.
              (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
            }),
        });
      },
    );
  });
}
