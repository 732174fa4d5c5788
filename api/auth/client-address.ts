import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/** What the address limits count under when a request came through no socket (app.request in tests). */
const NO_SOCKET_ADDRESS = 'no-socket';

/**
 * The address a request came from, for the per-address limits. By default
 * the socket's peer: X-Forwarded-For is written by whoever sends the
 * request, so believing it would let anyone pick a fresh address per
 * request. With `trustedProxies` = N (TRUST_PROXY), N proxies of ours stand
 * in front and each appended the address it received from: the client is
 * then the N-th entry from the right (the entries left of it are the
 * client's own claims). When the header has fewer entries than that, the
 * leftmost one is taken.
 */
export function clientAddress(c: Context, trustedProxies: number): string {
  if (trustedProxies > 0) {
    const forwarded = c.req.header('x-forwarded-for');
    if (forwarded) {
      const hops = forwarded
        .split(',')
        .map((hop) => hop.trim())
        .filter(Boolean);
      const client = hops[Math.max(0, hops.length - trustedProxies)];
      if (client) return client.slice(0, 64);
    }
  }
  return socketAddress(c) ?? NO_SOCKET_ADDRESS;
}

function socketAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: unknown; server?: unknown } | undefined;
  if (!env || (!env.incoming && !env.server)) return undefined;
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}
