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
/**
 * IPv6 by the IANA registries. Global unicast is 2000::/3 (IPv6 Address Space registry): the rest
 * (loopback, unspecified, unique-local, link-local, multicast, the blocks reserved by the IETF,
 * local-use NAT64 64:ff9b:1::/48, discard-only, SRv6 SIDs, the deprecated IPv4-compatible and
 * site-local forms, IPv4-translated ::ffff:0:0:0/96) is refused. Inside it, the blocks the
 * Special-Purpose Address Registry does not mark globally reachable are refused too.
 */
const GLOBAL_UNICAST = ipv6Block('2000::/3');
const NOT_GLOBAL_IN_GLOBAL_UNICAST = [
  '2001::/23', // IETF protocol assignments: Teredo 2001::/32 (embeds an IPv4 address), benchmarking 2001:2::/48, ORCHID 2001:10::/28
  '2001:20::/28', // ORCHIDv2: marked global, but identifiers that are not routable at the IP layer
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4: embeds an IPv4 address, reached through relays
  '3fff::/20', // documentation
].map(ipv6Block);
/** The more-specific blocks of 2001::/23 the registry marks globally reachable: anycast services, AMT, AS112, DETs. */
const GLOBAL_IN_IETF_ASSIGNMENTS = [
  '2001:1::1/128',
  '2001:1::2/128',
  '2001:1::3/128',
  '2001:3::/32',
  '2001:4:112::/48',
  '2001:30::/28',
].map(ipv6Block);
/**
 * Forms routed to the IPv4 address in their last 32 bits, judged by that address: IPv4-mapped
 * (a dual-stack socket connects over IPv4) and the well-known NAT64 prefix (a DNS64 resolver
 * gives it for every IPv4-only host; the translator connects to the IPv4 address).
 */
const EMBEDDING_IPV4 = ['::ffff:0:0/96', '64:ff9b::/96'].map(ipv6Block);

/** True when `address` (an IP literal) is not a public unicast address. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return NON_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return true;
  const value = ipv6Number(address);
  if (EMBEDDING_IPV4.some((block) => inBlock(value, block))) return NON_PUBLIC.check(ipv4Text(value), 'ipv4');
  if (!inBlock(value, GLOBAL_UNICAST)) return true;
  if (GLOBAL_IN_IETF_ASSIGNMENTS.some((block) => inBlock(value, block))) return false;
  return NOT_GLOBAL_IN_GLOBAL_UNICAST.some((block) => inBlock(value, block));
}

interface Ipv6Block {
  /** the block's first address, as a 128-bit number */
  first: bigint;
  /** bits after the prefix */
  hostBits: bigint;
}

function ipv6Block(cidr: string): Ipv6Block {
  const [address, prefix] = cidr.split('/');
  return { first: ipv6Number(address), hostBits: BigInt(128 - Number(prefix)) };
}

function inBlock(value: bigint, block: Ipv6Block): boolean {
  return value >> block.hostBits === block.first >> block.hostBits;
}

/** An IPv6 literal (isIP() === 6: maybe compressed, maybe with a dotted IPv4 tail or a zone) as a 128-bit number. */
function ipv6Number(address: string): bigint {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = text.slice(0, dotted.index) + (((a << 8) | b).toString(16) + ':' + ((c << 8) | d).toString(16));
  }
  const [head, tail] = text.split('::');
  const words = (part: string | undefined) => (part ? part.split(':').map((w) => parseInt(w, 16)) : []);
  const left = words(head);
  const right = words(tail);
  const all =
    tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.reduce((acc, word) => (acc << 16n) | BigInt(word), 0n);
}

function ipv4Text(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
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
      policy.allowHttp
        ? 'The endpoint must be an http or https URL.'
        : 'The endpoint must be an https URL (set WEBHOOK_ALLOW_HTTP=true for local testing).',
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
      'The endpoint is or resolves to a loopback, private, link-local or other non-public address (set WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true for local testing or a closed network).',
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
