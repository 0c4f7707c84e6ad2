import fc from 'fast-check';
import { isNonPublicAddress } from '../../src/webhooks/address-guard';

/**
 * The address guard against the IANA registries, written out here from the registries themselves
 * (not from the guard): random addresses drawn inside each block that is not global unicast are
 * refused, random addresses of 2000::/3 outside every such block are accepted, and the two forms
 * that are routed to the IPv4 address they embed are judged by that address.
 */

/**
 * IANA IPv6 Special-Purpose Address Registry (updated 2025-10): every block whose "Globally
 * Reachable" is False or N/A. ORCHIDv2 is listed too although the registry says True: ORCHIDs are
 * identifiers that are not routable at the IP layer, so no endpoint can live there.
 */
const SPECIAL_NOT_GLOBAL: readonly (readonly [string, string])[] = [
  ['::1/128', 'loopback'],
  ['::/128', 'unspecified'],
  ['64:ff9b:1::/48', 'IPv4-IPv6 translation, local use'],
  ['100::/64', 'discard-only'],
  ['100:0:0:1::/64', 'dummy prefix'],
  ['2001::/23', 'IETF protocol assignments'],
  ['2001::/32', 'Teredo'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:10::/28', 'ORCHID (deprecated)'],
  ['2001:20::/28', 'ORCHIDv2'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'SRv6 SIDs'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local unicast'],
];

/** IANA IPv6 Address Space registry: global unicast is 2000::/3; these are some of what lies outside it. */
const OUTSIDE_GLOBAL_UNICAST: readonly (readonly [string, string])[] = [
  ['ff00::/8', 'multicast'],
  ['fec0::/10', 'site-local (deprecated)'],
  ['::ffff:0:0:0/96', 'IPv4-translated (SIIT)'],
  ['::/96', 'IPv4-compatible (deprecated)'],
  ['4000::/3', 'reserved by the IETF'],
  ['e000::/4', 'reserved by the IETF'],
  ['200::/7', 'reserved (formerly OSI NSAP)'],
];

/** Blocks of 2001::/23 the special-purpose registry marks globally reachable (anycast services, AMT, AS112, DETs). */
const GLOBAL_INSIDE_IETF_BLOCK: readonly string[] = [
  '2001:1::1/128',
  '2001:1::2/128',
  '2001:1::3/128',
  '2001:3::/32',
  '2001:4:112::/48',
  '2001:30::/28',
];

/** Routed to the IPv4 address in their last 32 bits: judged by that address. */
const EMBEDDED_IPV4: readonly (readonly [string, string])[] = [
  ['::ffff:0:0/96', 'IPv4-mapped'],
  ['64:ff9b::/96', 'IPv4-IPv6 translation, well-known prefix'],
];

const PRIVATE_IPV4 = ['127.0.0.1', '10.1.2.3', '169.254.169.254', '192.168.0.9', '100.64.1.1', '0.0.0.0', '224.0.0.1'];
const PUBLIC_IPV4 = ['8.8.8.8', '93.184.215.14', '1.1.1.1', '151.101.1.69'];

interface Block {
  base: bigint;
  bits: number;
  label: string;
}

/** An IPv6 text (full or compressed, no dotted tail) as a 128-bit number. */
function toNumber(text: string): bigint {
  const [left, right] = text.includes('::') ? text.split('::') : [text, undefined];
  const words = (part: string | undefined) => (part ? part.split(':').map((w) => parseInt(w, 16)) : []);
  const l = words(left);
  const r = words(right);
  const all = right === undefined ? l : [...l, ...Array<number>(8 - l.length - r.length).fill(0), ...r];
  return all.reduce((acc, w) => (acc << 16n) | BigInt(w), 0n);
}

function ipv4Number(address: string): bigint {
  return address.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

function ipv4Of(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

/** Every word in full: `0:0:0:0:0:ffff:7f00:1`. */
function fullText(value: bigint): string {
  const words: string[] = [];
  for (let i = 7n; i >= 0n; i -= 1n) words.push(((value >> (i * 16n)) & 0xffffn).toString(16));
  return words.join(':');
}

/** As a URL gives it (compressed, maybe with a dotted tail): `::ffff:127.0.0.1`. */
function urlText(value: bigint): string {
  return new URL(`http://[${fullText(value)}]/`).hostname.slice(1, -1);
}

function block(cidr: string, label = cidr): Block {
  const [address, bits] = cidr.split('/');
  return { base: toNumber(address), bits: Number(bits), label };
}

function contains(b: Block, value: bigint): boolean {
  const shift = BigInt(128 - b.bits);
  return value >> shift === b.base >> shift;
}

const notGlobal = [...SPECIAL_NOT_GLOBAL, ...OUTSIDE_GLOBAL_UNICAST].map(([cidr, name]) =>
  block(cidr, `${cidr}, ${name}`),
);
const globalExceptions = GLOBAL_INSIDE_IETF_BLOCK.map((cidr) => block(cidr));
const embedded = EMBEDDED_IPV4.map(([cidr, name]) => block(cidr, `${cidr}, ${name}`));
const GLOBAL_UNICAST = block('2000::/3');

/** What the registries say of an address: refused (true) or accepted. */
function expectedRefused(value: bigint): boolean {
  if (embedded.some((b) => contains(b, value))) return isNonPublicAddress(ipv4Of(value));
  if (!contains(GLOBAL_UNICAST, value)) return true;
  if (globalExceptions.some((b) => contains(b, value))) return false;
  return notGlobal.some((b) => contains(b, value));
}

/** A 128-bit number inside `b`: its prefix, then random host bits. */
function inside(b: Block): fc.Arbitrary<bigint> {
  const hostBits = BigInt(128 - b.bits);
  const prefix = (b.base >> hostBits) << hostBits;
  return fc.bigInt({ min: 0n, max: (1n << hostBits) - 1n }).map((host) => prefix | host);
}

/** An address of `b` with the way it is written: in full or as a URL gives it. */
function writtenInside(b: Block): fc.Arbitrary<readonly [bigint, string]> {
  return fc
    .tuple(inside(b), fc.boolean())
    .map(([value, full]) => [value, full ? fullText(value) : urlText(value)] as const);
}

const RUNS = { numRuns: 300, seed: 20251009 };

describe('address guard over the IANA registries', () => {
  test.each(notGlobal.map((b) => [b.label, b] as const))(
    'when an address is drawn inside a block that is not global unicast (%s), then it is refused',
    (_label, b) => {
      fc.assert(
        fc.property(writtenInside(b), ([value, text]) => {
          // A few blocks hold more-specific ones the registry marks global (2001::/23): those are accepted.
          expect([text, isNonPublicAddress(text)]).toEqual([text, expectedRefused(value)]);
        }),
        RUNS,
      );
      expect(expectedRefused(b.base)).toBe(true);
    },
  );

  test.each(embedded.map((b) => [b.label, b] as const))(
    'when an address embeds an IPv4 address (%s), then it is refused exactly when that IPv4 address is',
    (_label, b) => {
      const ipv4 = fc.oneof(fc.constantFrom(...PRIVATE_IPV4, ...PUBLIC_IPV4), fc.ipV4());
      fc.assert(
        fc.property(ipv4, fc.boolean(), (address, full) => {
          const value = b.base | ipv4Number(address);
          const text = full ? fullText(value) : urlText(value);
          expect([text, isNonPublicAddress(text)]).toEqual([text, isNonPublicAddress(address)]);
        }),
        RUNS,
      );
      for (const address of PRIVATE_IPV4) expect(isNonPublicAddress(fullText(b.base | ipv4Number(address)))).toBe(true);
      for (const address of PUBLIC_IPV4) expect(isNonPublicAddress(fullText(b.base | ipv4Number(address)))).toBe(false);
    },
  );

  test('when an address of 2000::/3 lies outside every block that is not global, then it is accepted', () => {
    const globalUnicast = writtenInside(GLOBAL_UNICAST).filter(([value]) => !expectedRefused(value));
    fc.assert(
      fc.property(globalUnicast, ([, text]) => {
        expect([text, isNonPublicAddress(text)]).toEqual([text, false]);
      }),
      { ...RUNS, numRuns: 1000 },
    );
  });

  test('when an address lies at the edge of a block of 2000::/3 that is not global, then it is refused inside and accepted just outside', () => {
    for (const b of notGlobal.filter((n) => contains(GLOBAL_UNICAST, n.base))) {
      const hostBits = BigInt(128 - b.bits);
      const first = (b.base >> hostBits) << hostBits;
      const last = first + (1n << hostBits) - 1n;
      for (const edge of [first, last])
        expect([fullText(edge), isNonPublicAddress(fullText(edge))]).toEqual([fullText(edge), true]);
      for (const neighbour of [first - 1n, last + 1n]) {
        if (expectedRefused(neighbour)) continue;
        expect([fullText(neighbour), isNonPublicAddress(fullText(neighbour))]).toEqual([fullText(neighbour), false]);
      }
    }
  });

  test.each(GLOBAL_INSIDE_IETF_BLOCK)(
    'when an address lies in %s, which the registry marks globally reachable inside 2001::/23, then it is accepted',
    (cidr) => {
      const b = block(cidr);
      const last = b.base | ((1n << BigInt(128 - b.bits)) - 1n);
      expect([isNonPublicAddress(fullText(b.base)), isNonPublicAddress(urlText(last))]).toEqual([false, false]);
    },
  );

  test.each([
    '64:ff9b:1::7f00:1',
    '::ffff:0:7f00:1',
    '2001::7f00:1',
    '2002:7f00:1::1',
    '2002:808:808::1',
    '2001:db8::1',
    '3fff::1',
    '100::1',
    '2001:2::1',
    '2001:10::1',
    '2001:20::1',
    '5f00::1',
    '::808:808',
  ])('when the address is %s, then it is refused', (address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });
});
