import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * Where an owner-chosen outbound connection (a project's own SMTP server) may go: only to public
 * unicast addresses, unless the operator allows private ones (LATCH_SMTP_ALLOW_PRIVATE). Without
 * this, "send a test email to 10.0.0.5:6379" is a port scanner inside the operator's network, and
 * 169.254.169.254 hands out cloud credentials.
 *
 * The host is resolved once, every address it resolves to must be public (a name that resolves to
 * one public and one private address is refused: the resolver picks), and the connection is then
 * made to the address that was checked (pinned), never to the name again: a DNS answer that
 * changes between the check and the connection (rebinding) cannot move it.
 */

/** [first address of the range as 32-bit number, prefix length] for IPv4 ranges that are not public. */
const FORBIDDEN_V4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // "this network", includes the unspecified 0.0.0.0
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // CGNAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, includes the cloud metadata address 169.254.169.254
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments (includes 192.0.0.192, Oracle Cloud metadata)
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes the broadcast 255.255.255.255
];

function v4ToNumber(address: string): number {
  return address.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

const FORBIDDEN_V4_RANGES = FORBIDDEN_V4.map(([base, bits]) => ({ base: v4ToNumber(base), size: 2 ** (32 - bits) }));

function isForbiddenV4(address: string): boolean {
  const value = v4ToNumber(address);
  return FORBIDDEN_V4_RANGES.some((range) => value >= range.base && value < range.base + range.size);
}

/** The eight 16-bit groups of a valid IPv6 address (an embedded dotted IPv4 tail included). */
export function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (dotted) {
    const value = v4ToNumber(dotted[1]!);
    text = `${text.slice(0, -dotted[1]!.length)}${Math.floor(value / 65536).toString(16)}:${(value % 65536).toString(16)}`;
  }
  const [left = '', right] = text.split('::');
  const head = left ? left.split(':') : [];
  const tail = right ? right.split(':') : [];
  const groups = right === undefined ? head : [...head, ...Array<string>(Math.max(0, 8 - head.length - tail.length)).fill('0'), ...tail];
  return groups.map((group) => parseInt(group, 16));
}

function embeddedV4(high: number, low: number): string {
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

function isForbiddenV6(address: string): boolean {
  const g = ipv6Groups(address);
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  // ::/96 holds the unspecified (::), loopback (::1) and the deprecated IPv4-compatible forms.
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return true;
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-translated (::ffff:0:a.b.c.d): judged as the IPv4 address.
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && ((g4 === 0 && g5 === 0xffff) || (g4 === 0xffff && g5 === 0))) return isForbiddenV4(embeddedV4(g6, g7));
  // NAT64 (64:ff9b::/96) reaches the embedded IPv4 address; 64:ff9b:1::/48 is local-use NAT64.
  if (g0 === 0x64 && g1 === 0xff9b) return g2 === 1 || isForbiddenV4(embeddedV4(g6, g7));
  // 6to4 (2002::/16) embeds an IPv4 address in bits 16-47.
  if (g0 === 0x2002) return isForbiddenV4(embeddedV4(g1, g2));
  if (g0 === 0x2001 && g1 === 0) return true; // Teredo: the peer is an obfuscated IPv4 address
  if (g0 === 0x2001 && g1 === 0xdb8) return true; // documentation
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return true; // discard-only 100::/64
  if ((g0 & 0xfe00) === 0xfc00) return true; // unique local fc00::/7, includes fd00:ec2::254 (AWS metadata)
  if ((g0 & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return true; // deprecated site-local fec0::/10
  if ((g0 & 0xff00) === 0xff00) return true; // multicast ff00::/8
  return false;
}

/**
 * Whether an IP address is anything but a public unicast address: loopback, private (RFC 1918,
 * ULA), CGNAT, link-local and metadata, unspecified, multicast, broadcast, documentation and
 * reserved ranges, and the IPv6 forms that carry one of those IPv4 addresses (mapped, NAT64, 6to4).
 * Anything that is not an IP address at all counts as not public.
 *
 * @example
 * isNonPublicAddress('169.254.169.254'); // true
 * isNonPublicAddress('::ffff:10.0.0.1'); // true
 * isNonPublicAddress('93.184.215.14'); // false
 */
export function isNonPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return isForbiddenV4(bare);
  if (family === 6) return isForbiddenV6(bare);
  return true;
}

/** The SMTP ports an owner may choose while private addresses are not allowed: submission and relay ports only. */
export const ALLOWED_SMTP_PORTS: readonly number[] = [25, 465, 587, 2525];

export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: LookupAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Why a host cannot be connected to (the caller turns it into a catalogued error). */
export type HostRefusal = 'port-not-allowed' | 'address-not-allowed' | 'not-resolved';

export class OutboundRefused extends Error {
  constructor(readonly reason: HostRefusal) {
    super(reason);
  }
}

/**
 * Resolves `host` and returns the address to connect to, checked: OutboundRefused when the port is
 * not an SMTP port, the name does not resolve, or any address it resolves to is not public.
 * With `allowPrivate` every address and port is accepted (still resolved once and pinned).
 */
export async function resolveOutboundAddress(host: string, port: number, options: { allowPrivate: boolean; lookup?: LookupAll }): Promise<string> {
  if (!options.allowPrivate && !ALLOWED_SMTP_PORTS.includes(port)) throw new OutboundRefused('port-not-allowed');
  const bare = host.trim().replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(bare)) {
    addresses = [bare];
  } else {
    try {
      addresses = (await (options.lookup ?? systemLookup)(bare)).map((entry) => entry.address);
    } catch {
      throw new OutboundRefused('not-resolved');
    }
  }
  if (addresses.length === 0) throw new OutboundRefused('not-resolved');
  if (!options.allowPrivate && addresses.some(isNonPublicAddress)) throw new OutboundRefused('address-not-allowed');
  return addresses[0]!;
}
