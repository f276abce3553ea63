import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header carrying the delivery signature, per the platform spec. */
export const SIGNATURE_HEADER = 'X-Service-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface ParsedSignature { t: number; v1: string[] }
export type VerifyResult = { ok: true } | { ok: false; reason: 'malformed' | 'stale' | 'mismatch' };

/** Produces `t=<unix>,v1=<hex>` where hex = HMAC-SHA256(secret, "<t>.<body>"). */
export function sign(secret: string | Buffer, body: string | Buffer, unixSeconds: number): string {
  if (!Number.isSafeInteger(unixSeconds) || unixSeconds < 0) {
    throw new RangeError(`timestamp must be a non-negative integer, got ${unixSeconds}`);
  }
  return `t=${unixSeconds},v1=${digest(secret, body, unixSeconds).toString('hex')}`;
}

/**
 * Lenient parser: spaces around parts are ignored, unknown keys are skipped (room for a future v2),
 * and several v1 values are kept so secrets can be rotated. Returns null, never throws, on junk.
 */
export function parseSignatureHeader(header: unknown): ParsedSignature | null {
  if (typeof header !== 'string') return null;
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      // Two different timestamps make the header ambiguous; refuse rather than guess.
      if (!/^\d{1,15}$/.test(value) || (t !== null && t !== Number(value))) return null;
      t = Number(value);
    } else if (key === 'v1' && value !== '') {
      v1.push(value.toLowerCase());
    }
  }
  return t === null || v1.length === 0 ? null : { t, v1 };
}

/** Receiver-side check; mirrors what customers are told to do in docs/webhook-signatures.md. */
export function verify(
  secret: string | Buffer,
  body: string | Buffer,
  header: unknown,
  nowSeconds: number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): VerifyResult {
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { ok: false, reason: 'malformed' };
  const expected = digest(secret, body, parsed.t);
  // No early exit, so timing does not reveal which candidate (if any) matched.
  let matched = false;
  for (const candidate of parsed.v1) {
    const given = /^[0-9a-f]+$/.test(candidate) && candidate.length % 2 === 0 ? Buffer.from(candidate, 'hex') : null;
    // timingSafeEqual throws on unequal lengths, and length is not secret anyway.
    if (given && given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) return { ok: false, reason: 'mismatch' };
  // Checked after authenticity so only genuine-but-replayed deliveries are reported as stale.
  if (Math.abs(nowSeconds - parsed.t) > toleranceSeconds) return { ok: false, reason: 'stale' };
  return { ok: true };
}

function digest(secret: string | Buffer, body: string | Buffer, t: number): Buffer {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest();
}
