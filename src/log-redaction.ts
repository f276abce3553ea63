// Request URLs reach the log on every request ("incoming request"); a one-time link (dashboard set-password)
// or a careless client (`?api_key=`) would leave a live credential there. Their values are replaced instead,
// judged by value as well as by name: a credential nested in another parameter (`next=/x?token=...`) or shaped like
// one of ours (`sk_live_...`, a random token) is hidden whatever the parameter is called.
import type { FastifyRequest } from 'fastify';

export const REDACTED = '[redacted]';

// Matched against the end of the parameter name, lowercased with separators removed: `token`, `access_token`,
// `X-Api-Key`, `client_secret`, `oauth_signature`, `code` all match. Hiding a harmless value costs nothing.
const SENSITIVE_SUFFIXES = ['token', 'key', 'secret', 'password', 'passwd', 'pwd', 'signature', 'sig', 'code', 'auth', 'session', 'credential', 'credentials'];

export function isSensitiveParam(name: string): boolean {
  let plain: string;
  try { plain = decodeURIComponent(name.replace(/\+/g, ' ')); } catch { plain = name; }
  plain = plain.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SENSITIVE_SUFFIXES.some((suffix) => plain.endsWith(suffix));
}

// Ringbase's own credentials by their prefixes (API keys, the operator token, webhook secrets), and random tokens:
// 32 or more URL-safe characters mixing upper and lower case, as randomToken() makes them (set-password, sessions).
const CREDENTIAL_SHAPES = [/sk_live_/i, /(^|[^A-Za-z0-9])op_[A-Za-z0-9_-]{16,}/, /whsec_/i, /(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{32,}/];
// Resource sids (CA…, RE…: two letters and 32 hex digits) are identifiers, not credentials, and stay readable.
const SID = /\b[A-Z]{2}[0-9a-f]{32}\b/g;
const NESTED_PARAM = /(?:^|[?&;])([^=&;?#]+)=/g;

/** Whether a query value holds a credential: a sensitive parameter nested inside it, or a credential's shape. */
function isSensitiveValue(raw: string): boolean {
  let value: string;
  try { value = decodeURIComponent(raw.replace(/\+/g, ' ')); } catch { value = raw; }
  for (const [, name] of value.matchAll(NESTED_PARAM)) if (isSensitiveParam(name!)) return true;
  const plain = value.replace(SID, '');
  return CREDENTIAL_SHAPES.some((shape) => shape.test(plain));
}

/** The URL with the value of every sensitive query parameter replaced by `[redacted]`; the rest kept as sent. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const redacted = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    return eq >= 0 && (isSensitiveParam(name) || isSensitiveValue(pair.slice(eq + 1))) ? `${name}=${REDACTED}` : pair;
  }).join('&');
  return `${url.slice(0, q + 1)}${redacted}${hash < 0 ? '' : url.slice(hash)}`;
}

/** Fastify's own request serializer, with the URL redacted. */
export function serializeRequest(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
