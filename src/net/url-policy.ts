import { isIP } from 'node:net';
import { classifyIp, isPlainLoopback } from './ip-policy.js';

export interface UrlPolicyOptions {
  /** Refuse plain http (loopback targets in allowLoopback mode are exempt). */
  requireHttps: boolean;
  /** Dev/test only: permit 127.0.0.0/8, ::1 and the name `localhost`, over http too. Nothing else private. */
  allowLoopback: boolean;
  /** When given, the host must equal an entry or be a subdomain of one. An empty list allows nothing. */
  allowHosts?: readonly string[];
}

export type UrlPolicyCode =
  | 'invalid_url'
  | 'scheme_not_allowed'
  | 'userinfo_not_allowed'
  | 'empty_host'
  | 'internal_hostname'
  | 'address_refused'
  | 'https_required'
  | 'host_not_allowed';

export type UrlCheck =
  | { ok: true; url: URL }
  | { ok: false; code: UrlPolicyCode; reason: string };

// Names that resolve to the machine itself or to cloud/LAN infrastructure by convention.
const INTERNAL_NAMES = new Set(['metadata.goog']);
const INTERNAL_SUFFIXES = ['localhost', 'local', 'internal', 'localdomain', 'home.arpa'];

/**
 * Static checks on a customer-supplied URL. This is the cheap first gate (and the only one for
 * literal IPs); names are judged again at connect time on the addresses they resolve to.
 */
export function checkTargetUrl(raw: string, opts: UrlPolicyOptions): UrlCheck {
  let url: URL;
  try {
    // WHATWG parsing also canonicalises decimal/octal/hex/short IPv4 forms to dotted quads.
    url = new URL(raw);
  } catch {
    return refuse('invalid_url', 'not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refuse('scheme_not_allowed', `scheme ${url.protocol} is not allowed; use https`);
  }
  // Userinfo is a classic confusion vector (https://trusted@evil/) and has no use in webhooks.
  if (url.username !== '' || url.password !== '') {
    return refuse('userinfo_not_allowed', 'credentials in the URL are not allowed');
  }
  const host = normalizeHost(url.hostname);
  if (host === '') return refuse('empty_host', 'URL has no host');

  const loopbackExempt = opts.allowLoopback && (isIP(host) ? isPlainLoopback(host) : host === 'localhost');
  if (!loopbackExempt) {
    const refusal = isIP(host) ? checkAddress(host) : checkName(host);
    if (refusal) return refusal;
  }
  if (opts.requireHttps && url.protocol !== 'https:' && !loopbackExempt) {
    return refuse('https_required', 'target must use https');
  }
  if (opts.allowHosts && !opts.allowHosts.some((entry) => hostMatches(host, entry))) {
    return refuse('host_not_allowed', `host ${host} is not on the allow-list`);
  }
  return { ok: true, url };
}

/**
 * Allow-list rule: exact host, or a subdomain with a dot boundary, so `a.example.com` matches
 * `example.com` but `evil-example.com` does not. IP literals only ever match exactly.
 */
export function hostMatches(host: string, entry: string): boolean {
  const h = normalizeHost(host);
  const e = normalizeAllowEntry(entry);
  if (e === '' || h === '') return false;
  if (h === e) return true;
  return isIP(e) === 0 && isIP(h) === 0 && h.endsWith(`.${e}`);
}

/** Lowercase, without IPv6 brackets or trailing dots, so `LOCALHOST.` and `localhost` compare equal. */
export function normalizeHost(hostname: string): string {
  return hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.+$/, '');
}

/** Entries go through the URL parser too so IDN and odd IPv4 spellings compare like real hosts. */
function normalizeAllowEntry(entry: string): string {
  try {
    const trimmed = entry.trim();
    const bracketed = isIP(trimmed) === 6 ? `[${trimmed}]` : trimmed;
    return normalizeHost(new URL(`http://${bracketed}/`).hostname);
  } catch {
    return '';
  }
}

function checkAddress(host: string): UrlCheck | null {
  const verdict = classifyIp(host);
  return verdict.allowed ? null : refuse('address_refused', `${host} is refused: ${verdict.reason}`);
}

function checkName(host: string): UrlCheck | null {
  return isInternalName(host) ? refuse('internal_hostname', `${host} is an internal host name`) : null;
}

/** Names that reach the machine itself or the LAN by convention, whatever DNS says; `host` normalized. */
export function isInternalName(host: string): boolean {
  return INTERNAL_NAMES.has(host) ||
    INTERNAL_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`)) ||
    // Single-label names (`metadata`, `intranet`) resolve via search domains to internal hosts.
    !host.includes('.');
}

function refuse(code: UrlPolicyCode, reason: string): UrlCheck {
  return { ok: false, code, reason };
}
