// Media stream peers are customer URLs like webhooks: wss:// on a host the target policy accepts (ws:// only to
// loopback, under the development flag), checked when markup is accepted and again on the address the socket
// actually opens to (DNS rebinding), exactly as guarded-connector.ts does for HTTP.
import { isIP, type LookupFunction } from 'node:net';
import { checkCustomerUrl, type CustomerUrlRule } from './customer-url.js';
import { guardedLookup, refusalFor, systemResolve, type Resolver } from './guarded-connector.js';
import type { TargetRefusedError } from './errors.js';
import type { UrlCheck } from './url-policy.js';

/** The same URL under the http scheme it upgrades from, so the one customer-URL rule judges it. */
function asHttp(raw: string): string | null {
  if (/^wss:\/\//i.test(raw)) return `https://${raw.slice(6)}`;
  if (/^ws:\/\//i.test(raw)) return `http://${raw.slice(5)}`;
  return null;
}

export function checkStreamUrl(raw: string, rule: CustomerUrlRule): UrlCheck {
  const http = asHttp(raw);
  if (http === null) return { ok: false, code: 'scheme_not_allowed', reason: 'a stream URL must use wss://' };
  const check = checkCustomerUrl(http, rule);
  if (check.ok) return { ok: true, url: new URL(raw) };
  if (check.code === 'https_required') return { ok: false, code: 'https_required', reason: 'a stream URL must use wss:// (ws:// only to loopback in development)' };
  return check;
}

/**
 * What a stream's upgrade request signs: the whole URL the platform opens, scheme, host (with its port unless the
 * scheme's default), path and query, as the receiver rebuilds it from its scheme, the Host header and the request
 * target. As Twilio's X-Twilio-Signature for WebSocket requests does, so no two stream URLs share a signature.
 */
export function signedStreamUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}${url.search}`;
}

export interface GuardedSocketOptions {
  allowLoopback: boolean;
  lookup?: Resolver;
}

/**
 * What a WebSocket client needs to open only vetted sockets: a refusal for an IP-literal host (node skips
 * `lookup` for those) or the guarded `lookup` that judges whatever a name resolves to at connect time.
 */
export function guardedSocket(url: URL, opts: GuardedSocketOptions): { refused: TargetRefusedError } | { lookup: LookupFunction } {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) {
    const refused = refusalFor(host, [host], opts.allowLoopback);
    if (refused) return { refused };
  }
  return { lookup: guardedLookup(opts.lookup ?? systemResolve, opts.allowLoopback) };
}
