// The line a person starting the server reads first: where each listener is.
import type { Config } from './config.js';

export function readyLine(config: Config, address: { port: number }, https: boolean): string {
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const base = `${https ? 'https' : 'http'}://${host}:${address.port}`;
  const sip = config.engine.kind === 'drachtio'
    ? `SIP ${config.sip.host} udp/tcp ${config.sip.udpPort}, tls ${config.sip.tlsPort}, wss ${config.sip.wssPort}`
    : 'SIP: none (sandbox engine: simulated calls)';
  const preview = https ? `preview API ${base}/v1` : 'preview API /v1 needs HTTPS (RINGBASE_TLS_SELF_SIGNED=1)';
  return `Ringbase ready: dashboard ${base}/dashboard · API ${base}/api · ${preview} · API reference ${base}/docs · ${sip}`;
}
