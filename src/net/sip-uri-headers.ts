// Custom headers carried in a SIP destination, Twilio's way (`sip:bob@pbx.example.com?X-Tenant=acme&X-Case=42`):
// only `X-` headers, so nothing can be injected that re-routes or re-authenticates the INVITE (a Route, a Via,
// an Authorization). One rule for the markup linter, the target policy and the engine.

/** At most this many headers, each value at most this long (after percent-decoding). */
export const MAX_SIP_URI_HEADERS = 8;
const MAX_VALUE_CHARS = 256;
const NAME = /^X-[A-Za-z0-9-]{1,64}$/i;
/** Printable ASCII only: no CR or LF to end the header early, no control characters. */
const VALUE = /^[\x20-\x7E]*$/;

export type SipUriHeaders = { ok: true; uri: string; headers: Record<string, string> } | { ok: false; reason: string };

/** Splits `raw` into the URI the INVITE is sent to and the X- headers it carries; refuses any other header. */
export function splitSipUriHeaders(raw: string): SipUriHeaders {
  const at = raw.indexOf('?');
  if (at === -1) return { ok: true, uri: raw, headers: {} };
  const headers: Record<string, string> = {};
  const pairs = raw.slice(at + 1).split('&');
  if (pairs.length > MAX_SIP_URI_HEADERS) return { ok: false, reason: `at most ${MAX_SIP_URI_HEADERS} headers may follow ? in a SIP URI` };
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const name = eq === -1 ? pair : pair.slice(0, eq);
    if (!NAME.test(name)) return { ok: false, reason: `only X- headers may follow ? in a SIP URI (got "${name.slice(0, 64)}")` };
    let value: string;
    try {
      value = decodeURIComponent(eq === -1 ? '' : pair.slice(eq + 1));
    } catch {
      return { ok: false, reason: `the value of ${name} is not valid percent-encoding` };
    }
    if (value.length > MAX_VALUE_CHARS || !VALUE.test(value)) return { ok: false, reason: `the value of ${name} must be at most ${MAX_VALUE_CHARS} printable ASCII characters` };
    if (Object.keys(headers).some((n) => n.toLowerCase() === name.toLowerCase())) return { ok: false, reason: `${name} is given twice` };
    headers[name] = value;
  }
  return { ok: true, uri: raw.slice(0, at), headers };
}
