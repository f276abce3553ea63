import { isIP } from 'node:net';

/** An IP address as raw network-order bytes: 4 for IPv4, 16 for IPv6. */
export interface IpBytes {
  family: 4 | 6;
  bytes: Uint8Array;
}

/**
 * Parses a textual IP address into bytes. Validation is delegated to net.isIP so
 * we accept exactly what the socket layer would connect to; anything else is null.
 */
export function parseIp(text: string): IpBytes | null {
  // Zone ids (fe80::1%eth0) name an interface, not part of the address.
  const address = text.includes('%') ? text.slice(0, text.indexOf('%')) : text;
  const family = isIP(address);
  if (family === 4) return { family: 4, bytes: Uint8Array.from(address.split('.').map(Number)) };
  if (family === 6) return { family: 6, bytes: parseIpv6(address) };
  return null;
}

/** Expands an isIP-validated IPv6 string (optionally ending in a dotted quad) into 16 bytes. */
function parseIpv6(address: string): Uint8Array {
  // Rewrite a trailing dotted quad as two hex groups so only one grammar remains.
  const text = address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a, b, c, d) =>
    `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`);
  const toGroups = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const [head = '', tail] = text.split('::');
  const headGroups = toGroups(head);
  const tailGroups = tail === undefined ? [] : toGroups(tail);
  const zeros = new Array<number>(8 - headGroups.length - tailGroups.length).fill(0);
  const bytes = new Uint8Array(16);
  [...headGroups, ...zeros, ...tailGroups].forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  return bytes;
}

export function formatIpv4(bytes: Uint8Array): string {
  return Array.from(bytes).join('.');
}
