import { isIP } from 'node:net';
import { normalizeHost } from './url-policy.js';
import { splitSipUriHeaders } from './sip-uri-headers.js';

export type SipTransport = 'udp' | 'tcp' | 'tls' | 'ws' | 'wss';

/** The parts of a sip:/sips: URI that decide where its INVITE goes. */
export interface SipUriParts {
  scheme: 'sip' | 'sips';
  user: string | null;
  /** Canonical: lowercase, IPv6 without brackets, odd IPv4 spellings (2130706433, 0x7f.1) as dotted quads. */
  host: string;
  /** The host as written (lowercase, no brackets): differs from `host` for odd IPv4 spellings. */
  writtenHost: string;
  port: number | null;
  transport: SipTransport | null;
}

export type SipUriParse = { ok: true; uri: SipUriParts } | { ok: false; reason: string };

const TRANSPORTS = new Set<string>(['udp', 'tcp', 'tls', 'ws', 'wss']);
// RFC 3261 hostport: [IPv6] or a run of host characters, then an optional port.
const HOSTPORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._~%-]+)(?::(\d{1,5}))?$/;

/**
 * Parses a destination URI strictly. Parameters that re-route the request (maddr) and embedded headers other
 * than X- ones (a Route header in `?...`) are refused: they would send the INVITE somewhere other than the host
 * judged. X- headers (sip-uri-headers.ts) go with the INVITE and do not change where it goes.
 */
export function parseSipUri(raw: string): SipUriParse {
  const scheme = /^(sips?):/i.exec(raw)?.[1]?.toLowerCase() as 'sip' | 'sips' | undefined;
  if (!scheme) return { ok: false, reason: 'not a sip: or sips: URI' };
  const split = splitSipUriHeaders(raw);
  if (!split.ok) return split;
  const rest = split.uri.slice(scheme.length + 1);
  const [address = '', ...params] = rest.split(';');
  const at = address.lastIndexOf('@');
  const user = at === -1 ? null : address.slice(0, at);
  if (user !== null && (user === '' || user.includes(':'))) return { ok: false, reason: 'the user part is empty or carries a password' };
  const match = HOSTPORT.exec(at === -1 ? address : address.slice(at + 1));
  if (!match) return { ok: false, reason: 'the host part is not a valid host[:port]' };
  const host = canonicalHost(match[1]!);
  if (host === null) return { ok: false, reason: `${match[1]} is not a valid host` };
  const port = match[2] === undefined ? null : Number(match[2]);
  if (port !== null && (port < 1 || port > 65535)) return { ok: false, reason: `port ${port} is out of range` };
  let transport: SipTransport | null = null;
  for (const param of params) {
    const [name = '', value = ''] = param.split('=');
    if (name.toLowerCase() === 'maddr') return { ok: false, reason: 'the maddr parameter is not allowed' };
    if (name.toLowerCase() === 'transport') {
      if (!TRANSPORTS.has(value.toLowerCase())) return { ok: false, reason: `transport ${value} is not supported` };
      transport = value.toLowerCase() as SipTransport;
    }
  }
  return { ok: true, uri: { scheme, user, host, writtenHost: match[1]!.toLowerCase().replace(/^\[(.*)\]$/, '$1'), port, transport } };
}

/** The WHATWG host parser folds every IPv4 spelling the resolver would accept into one dotted quad. */
function canonicalHost(host: string): string | null {
  try {
    const bracketed = isIP(host) === 6 ? `[${host}]` : host;
    const parsed = normalizeHost(new URL(`http://${bracketed}/`).hostname);
    return parsed === '' ? null : parsed;
  } catch {
    return null;
  }
}
