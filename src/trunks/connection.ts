import { createHmac } from 'node:crypto';
import type { Config } from '../config.js';
import type { Trunk } from '../store/trunks.js';

export interface Connection {
  sip_domain: string;
  sip_port: string;
  transport: Trunk['transport'];
  wss_url: string | null;
  username: string;
  password: string | null;
  secret_available: boolean;
}

export interface IceServer {
  urls: string[];
  username?: string;
  credential?: string;
}

type SipConfig = Config['sip'];
type TurnConfig = Config['turn'];

function portFor(transport: Trunk['transport'], sip: SipConfig): number {
  switch (transport) {
    case 'udp': return sip.udpPort;
    case 'tcp': return sip.tcpPort;
    case 'tls': return sip.tlsPort;
    case 'wss': return sip.wssPort;
  }
}

function hostPort(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

export function connectionFor(trunk: Trunk, password: string | null, sip: SipConfig): Connection {
  const domain = trunk.sip_domain ?? sip.host;
  const port = portFor(trunk.transport, sip);
  return {
    sip_domain: domain,
    sip_port: String(port),
    transport: trunk.transport,
    wss_url: trunk.transport === 'wss' ? `wss://${hostPort(domain, port)}${sip.wssPath}` : null,
    username: trunk.endpoint_name,
    password,
    secret_available: password !== null,
  };
}

/**
 * coturn's REST-API scheme (use-auth-secret): username "<expiry>:<id>", credential
 * base64(HMAC-SHA1(secret, username)). Minted per request, so every response carries fresh, expiring credentials.
 */
export function iceServersFor(trunk: Trunk, turn: TurnConfig, sipHost: string, nowMs: number): IceServer[] {
  const host = turn.host ?? sipHost;
  const stun = `stun:${hostPort(host, turn.stunPort)}`;
  if (!turn.secret) return [{ urls: [stun] }];
  const username = `${Math.floor(nowMs / 1000) + turn.ttlSeconds}:${trunk.endpoint_name}`;
  const credential = createHmac('sha1', turn.secret).update(username).digest('base64');
  return [{
    urls: [
      stun,
      `turn:${hostPort(host, turn.turnPort)}?transport=udp`,
      `turn:${hostPort(host, turn.turnPort)}?transport=tcp`,
      `turns:${hostPort(host, turn.turnsPort)}?transport=tcp`,
    ],
    username,
    credential,
  }];
}
