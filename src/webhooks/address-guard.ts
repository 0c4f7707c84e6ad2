import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';

/**
 * Which endpoint addresses a webhook may reach. A webhook URL is chosen by whoever registers it
 * and the request is made from inside the deployment, so an address that is not public
 * (loopback, private, link-local, unspecified, shared, documentation, multicast, reserved)
 * would turn deliveries into requests to internal services. Refused unless the setting allows
 * them (tests and closed networks).
 */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata endpoints live here)
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
] as const)
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64: reaches an IPv4 address chosen by the URL
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');

/** True when `address` (an IP literal) is not a public unicast address. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return NON_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return NON_PUBLIC.check(mapped[1], 'ipv4');
  // IPv4-compatible and IPv4-mapped written in hex (::ffff:7f00:1, ::7f00:1) fall in ::/96.
  if (/^::(ffff:)?[0-9a-f]{1,4}:[0-9a-f]{1,4}$/i.test(address)) return true;
  return NON_PUBLIC.check(address, 'ipv6');
}

export interface EndpointPolicy {
  /** WEBHOOK_ALLOW_HTTP */
  allowHttp: boolean;
  /** WEBHOOK_ALLOW_PRIVATE_ADDRESSES */
  allowPrivateAddresses: boolean;
}

export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

/** Why an endpoint is refused: a message safe to show to the ADMIN who registered it. */
export class EndpointRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EndpointRefusedError';
  }
}

/** Checks the URL's form (scheme, no credentials) against the policy; throws EndpointRefusedError. */
export function checkEndpointUrl(url: string, policy: EndpointPolicy): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new EndpointRefusedError('The endpoint is not a valid absolute URL.');
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && policy.allowHttp))
    throw new EndpointRefusedError(
      policy.allowHttp ? 'The endpoint must be an http or https URL.' : 'The endpoint must be an https URL.',
    );
  if (parsed.username !== '' || parsed.password !== '')
    throw new EndpointRefusedError('The endpoint must not carry credentials in its URL.');
  if (parsed.hash !== '') throw new EndpointRefusedError('The endpoint must not have a fragment.');
  return parsed;
}

/**
 * True when the URL's host is an IP literal the policy refuses. Sockets skip `lookup` for IP
 * literals, so a delivery checks them here, before connecting.
 */
export function isRefusedLiteral(url: URL, policy: EndpointPolicy): boolean {
  const literal = ipLiteral(url);
  return literal !== undefined && !policy.allowPrivateAddresses && isNonPublicAddress(literal);
}

/** The host of a URL as an IP literal when it is one (brackets of IPv6 removed), else undefined. */
function ipLiteral(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) !== 0 ? host : undefined;
}

/**
 * Checks the URL and every address its host resolves to now; throws EndpointRefusedError. At
 * registration: a host that resolves to a non-public address is refused. Delivery checks again
 * at connection time (guardedLookup), since DNS answers change.
 */
export async function checkEndpoint(
  url: string,
  policy: EndpointPolicy,
  resolver: Resolver = systemResolver,
): Promise<URL> {
  const parsed = checkEndpointUrl(url, policy);
  if (policy.allowPrivateAddresses) return parsed;
  const literal = ipLiteral(parsed);
  const addresses = literal !== undefined ? [literal] : await resolveAll(parsed.hostname, resolver);
  if (addresses.length === 0 || addresses.some(isNonPublicAddress))
    throw new EndpointRefusedError(
      'The endpoint is or resolves to a loopback, private, link-local or other non-public address.',
    );
  return parsed;
}

async function resolveAll(hostname: string, resolver: Resolver): Promise<string[]> {
  try {
    return (await resolver(hostname)).map((a) => a.address);
  } catch {
    throw new EndpointRefusedError('The endpoint host does not resolve.');
  }
}

/**
 * The `lookup` of a delivery's request: resolves the host, refuses when any address is not
 * public (unless allowed), and hands the socket the address it checked, so that a second DNS
 * answer (rebinding) can never be the one connected to.
 */
export function guardedLookup(policy: EndpointPolicy, resolver: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    const literal = isIP(hostname) !== 0 ? hostname : undefined;
    const resolved =
      literal !== undefined ? Promise.resolve([{ address: literal, family: isIP(literal) }]) : resolver(hostname);
    resolved.then(
      (addresses) => {
        const usable = addresses.filter((a) => policy.allowPrivateAddresses || !isNonPublicAddress(a.address));
        if (usable.length === 0 || usable.length !== addresses.length) {
          callback(new EndpointRefusedError('The endpoint resolves to a non-public address; not connected.'), '', 0);
          return;
        }
        const chosen = usable[0];
        if (options.all) callback(null, usable);
        else callback(null, chosen.address, chosen.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}
