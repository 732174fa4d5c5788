import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/**
 * One request header, read from Node's own parsed headers when the request
 * came through @hono/node-server: `c.req.header()` builds an undici `Headers`
 * for the whole request on first use (each name and value converted and
 * validated again), a measurable share of a cached read. `name` in lower
 * case. The same answer for the headers read this way (`x-`, `if-none-match`):
 * repeated ones joined with ", " as undici does (Node keeps only the first of
 * a few others, such as content-type and authorization: read those through
 * Hono). Requests made in process (`app.request`, tests) have no Node
 * message and use Hono's.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming === undefined) return c.req.header(name);
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
