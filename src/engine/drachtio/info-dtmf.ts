// Keys sent as SIP INFO, as carriers configured for it send them (docs/carriers.md): application/dtmf-relay
// ("Signal=5\r\nDuration=160", the common form) or application/dtmf (the key alone). Some senders write * and # as the
// event numbers 10 and 11, as RFC 4733 numbers them.
const EVENT_KEYS: Record<string, string> = { 10: '*', 11: '#', 12: 'A', 13: 'B', 14: 'C', 15: 'D' };

/** The key an INFO carries, or null when it carries none (another content type, no Signal, not a key). */
export function keyOfInfo(contentType: string | undefined, body: string | undefined): string | null {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  let signal: string | undefined;
  if (type === 'application/dtmf-relay') signal = /^\s*signal\s*=\s*(\S+)\s*$/im.exec(body ?? '')?.[1];
  else if (type === 'application/dtmf') signal = (body ?? '').trim();
  if (signal === undefined) return null;
  const key = EVENT_KEYS[signal] ?? signal.toUpperCase();
  return /^[0-9*#A-D]$/.test(key) ? key : null;
}
