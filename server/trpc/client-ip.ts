import { isIP } from 'node:net';

/** express's compiled 'trust proxy' setting: may the hop at `index` (0 = the socket's peer) be trusted? */
export type TrustProxyFn = (address: string, index: number) => boolean;

/**
 * One X-Forwarded-For entry as an IP address, or null when it is not one. Proxies that append a
 * port (`203.0.113.7:51234`, `[2001:db8::1]:443`, as Azure's do) are read without it; anything
 * else that is not an address (`unknown`, `random-123`, an empty entry) is ignored: it was a way to
 * give each request a fresh key for every per-IP limit.
 *
 * @example forwardedAddress(' 203.0.113.7:8080 ') // '203.0.113.7'
 * @example forwardedAddress('not-an-ip') // null
 */
export function forwardedAddress(entry: string): string | null {
  const value = entry.trim();
  if (isIP(value)) return value;
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(value);
  if (v4WithPort && isIP(v4WithPort[1]!) === 4) return v4WithPort[1]!;
  const v6Bracketed = /^\[([0-9A-Fa-f:.]{2,45})\](?::\d{1,5})?$/.exec(value);
  if (v6Bracketed && isIP(v6Bracketed[1]!) === 6) return v6Bracketed[1]!;
  return null;
}

/**
 * The client's IP address. The chain is the socket's peer followed by the X-Forwarded-For entries
 * from right (nearest proxy) to left, with entries that are not IP addresses dropped; walking it,
 * each address the operator trusts (`LATCH_TRUST_PROXY`) hands over to the one before it, and the
 * first untrusted address is the client. With nothing trusted (the default), it is the socket
 * address. The result is always a valid IP address (or null when the socket has none), so it can
 * key per-IP limits and be stored on sessions as is.
 *
 * @example resolveClientIp('10.0.0.2', '198.51.100.9, junk', () => true) // '198.51.100.9'
 */
export function resolveClientIp(socketAddress: string | undefined, forwardedFor: string | string[] | undefined, trust: TrustProxyFn | null): string | null {
  const socket = socketAddress && isIP(socketAddress) ? socketAddress : null;
  if (!socket || !trust || forwardedFor === undefined) return socket;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  const forwarded = header
    .split(',')
    .map(forwardedAddress)
    .filter((address): address is string => address !== null)
    .reverse();
  const chain = [socket, ...forwarded];
  for (let i = 0; i < chain.length - 1; i++) {
    if (!trust(chain[i]!, i)) return chain[i]!;
  }
  return chain[chain.length - 1]!;
}
