// What a control plane signs when it forwards a request to the node carrying a call, and how the receiver checks it:
// an HMAC under a key every node derives from the shared master key. A request that checks out came from a peer,
// which has taken it over HTTPS, authenticated it and counted it against the limits already, so the receiver
// neither forwards it again nor refuses or counts it twice. The client's own credentials travel with it and are
// checked again.
//
// The signature covers the request line and a digest of the body, so it is checked as the request arrives (before
// the checks a forwarded request skips), and the body against its digest once parsed.
import { sign, verify } from '../../net/signature.js';
import { sha256Hex } from '../../crypto/tokens.js';

export const FORWARDED_BY_HEADER = 'x-ringbase-forwarded-by';
export const FORWARD_SIGNATURE_HEADER = 'x-ringbase-forward-signature';
export const FORWARD_BODY_HEADER = 'x-ringbase-forward-body-sha256';
/** The purpose the forwarding key is derived for (SecretBox.derive). */
export const FORWARDING_KEY_PURPOSE = 'forwarding between control planes';
/** How far the time a forward was signed at may be from the receiver's clock (a replay window, clocks apart). */
const TOLERANCE_S = 30;

/** A request as both sides see it (`body`: its JSON text, '' for none). */
export interface ForwardedRequest { method: string; url: string; body: string }

/** A parsed JSON body as the signed text: the same on both sides, since the receiver parses what the sender wrote. */
export const bodyText = (body: unknown): string => (body === undefined || body === null ? '' : JSON.stringify(body));


/** What the signature covers besides the time: webhook signatures' scheme (net/signature.ts) over these fields. */
const signed = (from: string, method: string, url: string, bodyDigest: string): string => `${from}\n${method}\n${url}\n${bodyDigest}`;

export function forwardHeaders(key: Buffer, from: string, r: ForwardedRequest, nowMs: number): Record<string, string> {
  const at = Math.floor(nowMs / 1000);
  const bodyDigest = sha256Hex(r.body);
  return {
    [FORWARDED_BY_HEADER]: from,
    [FORWARD_BODY_HEADER]: bodyDigest,
    [FORWARD_SIGNATURE_HEADER]: sign(key, signed(from, r.method, r.url, bodyDigest), at),
  };
}

type Headers = Record<string, string | string[] | undefined>;
const one = (h: Headers, name: string): string | undefined => (typeof h[name] === 'string' ? h[name] : undefined);

/**
 * The peer that forwarded this request, and the body digest it signed, when the signature is a peer's for this
 * request line, made within the tolerance; null otherwise (and for a request with no mark at all).
 */
export function checkForward(key: Buffer, headers: Headers, method: string, url: string, nowMs: number): { from: string; bodyDigest: string } | null {
  const from = one(headers, FORWARDED_BY_HEADER);
  const bodyDigest = one(headers, FORWARD_BODY_HEADER);
  if (from === undefined || bodyDigest === undefined) return null;
  const checked = verify(key, signed(from, method, url, bodyDigest), one(headers, FORWARD_SIGNATURE_HEADER), Math.floor(nowMs / 1000), TOLERANCE_S);
  return checked.ok ? { from, bodyDigest } : null;
}

/** Whether a parsed body is the one whose digest was signed. */
export const bodyMatches = (bodyDigest: string, body: unknown): boolean => sha256Hex(bodyText(body)) === bodyDigest;
