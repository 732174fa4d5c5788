import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * The SSRF guard of webhook deliveries (product rules §10): a webhook URL is
 * chosen by an integrator, so without this a URL could make our worker call
 * into our own network (Redis, Postgres, a cloud metadata endpoint). Checked
 * when an endpoint is created (a clear 400) and again on every connection,
 * inside the socket's DNS lookup, so a host that resolved to a public address
 * at creation and to 127.0.0.1 later (DNS rebinding) is refused at delivery.
 */

// Not public unicast: unspecified, "this network", loopback, private, carrier-grade NAT, link-local,
// the IETF protocol block, benchmarking, multicast and reserved. IPv4-mapped IPv6 addresses
// (::ffff:a.b.c.d) are checked against the IPv4 rules by BlockList itself.
const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  refused.addSubnet(network, prefix, 'ipv4');
// ::/96 holds :: and ::1 (and the deprecated IPv4-compatible form); NAT64 prefixes could reach any
// IPv4 address, private ones included; then unique-local, link-local, site-local and multicast.
for (const [network, prefix] of [
  ['::', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  refused.addSubnet(network, prefix, 'ipv6');

/** True for an address a webhook may not be sent to (loopback, private, link-local, unspecified, …). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true; // not an address at all: refuse rather than guess
  return refused.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export interface UrlPolicy {
  /** WEBHOOK_ALLOW_HTTP: plain http:// too (development). */
  allowHttp: boolean;
  /** WEBHOOK_ALLOW_PRIVATE: loopback and private targets too (development, tests). */
  allowPrivate: boolean;
}

export type UrlRefusal = { reason: string };

/** The host of a URL as an address when it is one ("[::1]" -> "::1"), else null. */
const literalAddress = (hostname: string): string | null => {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? null : bare;
};

const resolveAll = (hostname: string): Promise<LookupAddress[]> =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/**
 * Why `url` may not be a webhook endpoint under `policy`, or null when it may.
 * A hostname is resolved now and refused if any of its addresses is private.
 */
export async function refuseWebhookUrl(url: string, policy: UrlPolicy, resolve = resolveAll): Promise<UrlRefusal | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { reason: 'is not an absolute URL' };
  }
  if (parsed.protocol !== 'https:' && !(policy.allowHttp && parsed.protocol === 'http:')) {
    return { reason: policy.allowHttp ? 'must be an http:// or https:// URL' : 'must be an https:// URL' };
  }
  if (parsed.username !== '' || parsed.password !== '') return { reason: 'must not carry credentials' };
  if (policy.allowPrivate) return null;
  const literal = literalAddress(parsed.hostname);
  if (literal !== null)
    return isPrivateAddress(literal) ? { reason: `points at a private or loopback address (${literal})` } : null;
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(parsed.hostname);
  } catch {
    return { reason: `host ${parsed.hostname} does not resolve` };
  }
  if (addresses.length === 0) return { reason: `host ${parsed.hostname} does not resolve` };
  const bad = addresses.find((a) => isPrivateAddress(a.address));
  return bad ? { reason: `host ${parsed.hostname} resolves to a private or loopback address (${bad.address})` } : null;
}

class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
}

/**
 * A socket `lookup` that refuses private addresses: the connection uses the
 * very addresses checked here, so nothing can change between check and
 * connect. (Node calls no lookup for a literal IP host: `deliver` checks those.)
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as LookupAddress[];
      const bad = allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address));
      if (bad)
        return callback(new PrivateAddressError(`${hostname} resolves to a private or loopback address (${bad.address})`), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(new Error(`${hostname} does not resolve`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

export { literalAddress };
