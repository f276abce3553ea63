// Host names people type (allow-lists, SIP domains, carrier addresses), judged by one rule so every surface
// refuses the same things: DNS syntax (RFC 1123), no bare top-level names, and IP literals only where allowed.
import { isIP } from 'node:net';
import { classifyIp, isPlainLoopback } from './ip-policy.js';

/** Which IP literals stand for a host: public ones, public or plain loopback (the dev flag), or any (operator input). */
export type IpLiterals = 'public' | 'public-or-loopback' | 'any';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Why `value` is not an acceptable host name, or null. `ip`: which IP literals are accepted in its place.
 * Judged as given (not trimmed): a caller that tolerates surrounding spaces trims before asking, and stores that.
 * One trailing dot (the DNS root) is allowed; brackets only around an IPv6 address.
 */
export function hostnameProblem(value: string, ip: IpLiterals): string | null {
  const inBrackets = /^\[(.*)\]$/.exec(value)?.[1];
  if (inBrackets !== undefined && isIP(inBrackets) !== 6) return 'has brackets around something that is not an IPv6 address';
  const host = (inBrackets ?? value).toLowerCase().replace(/\.$/, '');
  if (host === '') return 'is empty';
  if (isIP(host)) {
    if (ip === 'public' || (ip === 'public-or-loopback' && !isPlainLoopback(host))) {
      const verdict = classifyIp(host);
      if (!verdict.allowed) return `is not a public address (${verdict.reason})`;
    }
    return null;
  }
  if (host.length > 253) return 'is longer than 253 characters';
  const labels = host.split('.');
  if (labels.length < 2) return 'needs a domain, not a single name such as "localhost" or "com"';
  const bad = labels.find((l) => !LABEL.test(l));
  if (bad !== undefined) {
    return bad === '' ? 'has an empty label (two dots in a row)' : `has an invalid label "${bad}" (1-63 letters, digits or "-", not at either end)`;
  }
  if (/^\d+$/.test(labels.at(-1)!)) return 'ends in a numeric label: write an IP address in full';
  return null;
}
