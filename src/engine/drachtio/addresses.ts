// Numbers as they appear in SIP (request-URI and From user parts) turned into the E.164 the platform stores.

/** "+15550001000", "15550001000" and "tel:+1-555-000-1000" all become "+15550001000"; names stay as they are. */
export function e164(user: string | undefined): string {
  const raw = decodeURIComponent(user ?? '').replace(/^tel:/, '');
  const digits = raw.replace(/[\s().-]/g, '');
  if (/^\+?\d{6,15}$/.test(digits)) return digits.startsWith('+') ? digits : `+${digits}`;
  return raw;
}
