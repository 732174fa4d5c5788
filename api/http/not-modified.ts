import type { ServerResponse } from 'node:http';
import { X_ALREADY_SENT } from '@hono/node-server/utils/response/constants';
import type { Context } from 'hono';
import type { AppEnv } from '../app-env.js';

/**
 * What a handler returns after answering 304 itself: @hono/node-server
 * writes nothing for a response marked already sent, and the request context
 * logs its status. One object for every such answer (nothing built per request).
 */
export const NOT_MODIFIED_SENT: Response = new Response(null, { status: 304, headers: { [X_ALREADY_SENT]: 'true' } });

/**
 * Answers `304 Not Modified` with `headers` (and X-Request-Id). A bodiless
 * response built through Hono cannot take @hono/node-server's light path: it
 * builds a full undici Response and converts its headers (~25 µs a 304, more
 * than the rest of a cached revalidation); and the light path's string body
 * would add `Content-Length: 0`, which RFC 9110 §8.6 forbids on a 304. So the
 * head is written to Node's response directly, as the adapter itself would.
 * In process (tests' `app.request`), or once something else answered (the
 * request time limit), it is an ordinary Hono response.
 */
export function notModified(c: Context<AppEnv>, headers: Record<string, string>): Response {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing === undefined || outgoing.headersSent) {
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    return c.body(null, 304);
  }
  outgoing.writeHead(304, { 'X-Request-Id': c.get('requestId'), ...headers });
  outgoing.end();
  return NOT_MODIFIED_SENT;
}
