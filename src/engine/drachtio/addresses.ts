// Numbers as they appear in SIP (request-URI and From user parts) turned into the E.164 the platform stores.
import { fromCarrierNumber, type NumberPart, type NumberRules } from '../../net/number-rules.js';

/** "+15550001000", "15550001000" and "tel:+1-555-000-1000" all become "+15550001000"; names stay as they are. */
export function e164(user: string | undefined): string {
  const raw = decodeURIComponent(user ?? '').replace(/^tel:/, '');
  const digits = raw.replace(/[\s().-]/g, '');
  if (/^\+?\d{6,15}$/.test(digits)) return digits.startsWith('+') ? digits : `+${digits}`;
  return raw;
}

/** A carrier's number as it wrote it (its number rules: format, prefixes) read as E.164; names stay as they are. */
export function carrierNumber(user: string | undefined, rules: NumberRules, part: NumberPart): string {
  const raw = decodeURIComponent(user ?? '').replace(/^tel:/, '');
  const compact = raw.replace(/[\s().-]/g, '');
  return fromCarrierNumber(/^\+?[\d#*]+$/.test(compact) ? compact : raw, rules, part);
}
