// What a REGISTER asks for: drachtio-srf 5 parses headers but does not fill `req.registration` (that came
// from a separate middleware), so the contacts and their expiry are read here (RFC 3261 §10.2).
import type Srf from 'drachtio-srf';

export type RegisterRequest =
  | { kind: 'query' }
  /** `Contact: *` with `Expires: 0`: remove every binding of this user. */
  | { kind: 'remove-all' }
  /** Each contact with the expiry it asked for in seconds (0 removes it; NaN when it named none). */
  | { kind: 'bindings'; contacts: Array<{ uri: string; expires: number }> };

export function parseRegister(req: Pick<Srf.SrfRequest, 'has' | 'get' | 'getParsedHeader'>): RegisterRequest {
  if (!req.has('Contact')) return { kind: 'query' };
  const headerExpires = req.has('Expires') ? Number.parseInt(req.get('Expires'), 10) : Number.NaN;
  const parsed = req.getParsedHeader('Contact') as unknown;
  if (parsed === '*') return { kind: 'remove-all' };
  const contacts = (Array.isArray(parsed) ? parsed as Array<{ uri?: string; params?: Record<string, string | undefined> }> : [])
    .filter((c) => typeof c.uri === 'string' && c.uri !== '')
    .map((c) => {
      const own = c.params?.expires === undefined ? Number.NaN : Number.parseInt(c.params.expires, 10);
      return { uri: c.uri!, expires: Number.isNaN(own) ? headerExpires : own };
    });
  return contacts.length ? { kind: 'bindings', contacts } : { kind: 'query' };
}

/**
 * The transport a REGISTER came over. drachtio reports a WebSocket connection as `tcp`; the top Via's sent
 * protocol (`SIP/2.0/WS` or `WSS`) says it is one, which makes the binding a WebRTC seat.
 */
export function transportOf(req: Pick<Srf.SrfRequest, 'get' | 'protocol'>): string {
  const sent = /^\s*SIP\s*\/\s*2\.0\s*\/\s*(WSS?)\b/i.exec(req.get('Via') ?? '');
  return (sent ? sent[1]! : req.protocol || 'udp').toLowerCase();
}
