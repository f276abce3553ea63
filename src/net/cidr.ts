import { parseIp, type IpBytes } from './ip-address.js';

/** A parsed network: the address bytes with host bits cleared, plus the prefix length. */
export interface Cidr {
  family: 4 | 6;
  network: Uint8Array;
  prefix: number;
}

/**
 * Parses "10.0.0.0/8", "fd00::/8" or a bare address (treated as a single-host network).
 * Returns null for anything malformed so config loaders can report the bad entry themselves.
 * Host bits set beyond the prefix ("10.1.2.3/8") are cleared rather than rejected.
 */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf('/');
  const ip = parseIp((slash === -1 ? text : text.slice(0, slash)).trim());
  if (!ip) return null;
  const maxPrefix = ip.family === 4 ? 32 : 128;
  const prefixText = slash === -1 ? String(maxPrefix) : text.slice(slash + 1).trim();
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > maxPrefix) return null;
  return { family: ip.family, network: maskBytes(ip.bytes, prefix), prefix };
}

/**
 * True when `ip` lies inside `cidr`. IPv4-mapped IPv6 addresses (::ffff:a.b.c.d, which is how
 * dual-stack sockets report IPv4 peers) are matched against IPv4 networks by their IPv4 part.
 * Malformed input never matches.
 */
export function cidrContains(cidr: Cidr | string, ip: string | IpBytes): boolean {
  const network = typeof cidr === 'string' ? parseCidr(cidr) : cidr;
  const parsed = typeof ip === 'string' ? parseIp(ip) : ip;
  if (!network || !parsed) return false;
  const address = network.family === 4 ? unmapIpv4(parsed) : parsed;
  if (!address || address.family !== network.family) return false;
  return equalBytes(maskBytes(address.bytes, network.prefix), network.network);
}

/** Returns the IPv4 form of an IPv4 or IPv4-mapped IPv6 address, else null. */
function unmapIpv4(ip: IpBytes): IpBytes | null {
  if (ip.family === 4) return ip;
  const mapped = ip.bytes.subarray(0, 12).every((b, i) => b === (i < 10 ? 0 : 0xff));
  return mapped ? { family: 4, bytes: ip.bytes.slice(12) } : null;
}

function maskBytes(bytes: Uint8Array, prefix: number): Uint8Array {
  return bytes.map((byte, i) => {
    const bitsInByte = Math.min(8, Math.max(0, prefix - i * 8));
    return byte & ((0xff << (8 - bitsInByte)) & 0xff);
  });
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
