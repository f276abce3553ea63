// Who is really on the other end. Forwarded headers are believed only when the TCP peer is a configured
// trusted proxy; from anyone else they are ignored, so a client cannot claim https or another IP address.
import type { FastifyRequest } from 'fastify';
import { cidrContains, parseCidr, type Cidr } from '../../net/index.js';

export class TrustedProxies {
  readonly #networks: Cidr[];

  constructor(entries: readonly string[]) {
    this.#networks = entries.map((e) => parseCidr(e)).filter((c): c is Cidr => c !== null);
  }

  trusts(ip: string | undefined): boolean {
    return ip !== undefined && this.#networks.some((n) => cidrContains(n, ip));
  }

  /** TLS on our own socket, or `X-Forwarded-Proto: https` as set by the trusted proxy nearest to us. */
  isHttps(req: FastifyRequest): boolean {
    if ((req.raw.socket as { encrypted?: boolean }).encrypted) return true;
    if (!this.trusts(req.raw.socket.remoteAddress)) return false;
    const proto = lastValue(req.headers['x-forwarded-proto']);
    return proto?.toLowerCase() === 'https';
  }

  /**
   * The client address: walk X-Forwarded-For from the right (the entry our nearest proxy appended) past
   * trusted proxies; the first untrusted hop is the client. Entries further left are client-controlled.
   */
  clientIp(req: FastifyRequest): string {
    const peer = req.raw.socket.remoteAddress ?? '';
    if (!this.trusts(peer)) return peer;
    const hops = String(req.headers['x-forwarded-for'] ?? '').split(',').map((h) => h.trim()).filter((h) => h !== '');
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      client = hops[i]!;
      if (!this.trusts(client)) break;
    }
    return client;
  }
}

function lastValue(header: string | string[] | undefined): string | undefined {
  const joined = Array.isArray(header) ? header.join(',') : header;
  return joined?.split(',').map((v) => v.trim()).filter((v) => v !== '').at(-1);
}
