// Request URLs reach the log on every request ("incoming request"); a one-time link (dashboard set-password)
// or a careless client (`?api_key=`) would leave a live credential there. Their values are replaced instead.
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

/** The URL with the value of every sensitive query parameter replaced by `[redacted]`; the rest kept as sent. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const redacted = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    return eq >= 0 && isSensitiveParam(name) ? `${name}=${REDACTED}` : pair;
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
